// The service's HTTP API as the page uses it: reads (no token needed), and changes, which carry the bearer token
// the person typed once (kept in sessionStorage, so for this tab only) and ask for it when the service refuses.

const tokenKey = "quire.token";

/** A request the service refused or failed, with its RFC 9457 problem details when it sent them. */
export class ProblemError extends Error {
  constructor(status, problem, fallback) {
    super((problem && (problem.detail || problem.title)) || fallback);
    this.status = status;
    this.problem = problem;
  }

  /** Whether the service refused the request for want of its bearer token (or for a wrong one). */
  get needsToken() {
    return this.status === 401 && this.problem?.type === "/problems/bearer-token-required";
  }
}

/** The token kept for this tab, or null. */
export function storedToken() {
  return sessionStorage.getItem(tokenKey);
}

/** Keeps `token` for this tab (or forgets it when empty). */
export function storeToken(token) {
  if (token) sessionStorage.setItem(tokenKey, token);
  else sessionStorage.removeItem(tokenKey);
}

async function problemOf(response, what) {
  let problem = null;
  if ((response.headers.get("Content-Type") || "").includes("json")) {
    try {
      problem = await response.json();
    } catch {
      problem = null;
    }
  }
  return new ProblemError(response.status, problem, `${what} failed: HTTP ${response.status}`);
}

/** GETs `path` as JSON. */
export async function getJSON(path, what) {
  const response = await fetch(path, { headers: { Accept: "application/json" }, cache: "no-store" });
  if (!response.ok) throw await problemOf(response, what);
  return response.json();
}

/** GETs `path` as text. */
export async function getText(path, what) {
  const response = await fetch(path);
  if (!response.ok) throw await problemOf(response, what);
  return response.text();
}

let askForToken = async () => null;

/**
 * Sets how the page asks for a token: `ask(reason, wasRefused)` resolves to the token typed, or null when the
 * person cancels.
 */
export function setTokenPrompt(ask) {
  askForToken = ask;
}

/**
 * Sends a change. With a kept token it carries `Authorization: Bearer`; when the service answers 401
 * `/problems/bearer-token-required`, the person is asked for the token (once: it is kept for the tab) and the
 * request is sent again. Throws a ProblemError when it is refused or fails; `what` names the action for messages
 * ("delete “Report”").
 */
export async function change(method, path, { body, headers = {}, what }) {
  for (;;) {
    const sent = new Headers(headers);
    const token = storedToken();
    if (token) sent.set("Authorization", `Bearer ${token}`);
    const response = await fetch(path, { method, body, headers: sent });
    if (response.ok) return response;
    const error = await problemOf(response, what);
    if (!error.needsToken) throw error;
    const reason = token
      ? `The service refused the token to ${what}: type the right one.`
      : `The service refused to ${what}: it needs its access token.`;
    const typed = await askForToken(reason);
    if (!typed) {
      error.message = `Refused: the service needs its access token to ${what}.`;
      throw error;
    }
    storeToken(typed);
  }
}

/** The JSON body of a response, or null when it has none (204). */
export async function jsonOf(response) {
  return response.status === 204 ? null : response.json();
}
