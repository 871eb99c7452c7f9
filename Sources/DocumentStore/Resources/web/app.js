// The page: wires the list, the document view, the change feed, uploads, deletion and conflict resolution to
// the service's API. Plain JavaScript modules, no framework, no build step.

import { change, getJSON, jsonOf, setTokenPrompt, storedToken, storeToken } from "./api.js";
import { followEvents } from "./events.js";
import { DocumentList, formatDate } from "./list.js";
import { DocumentViewer } from "./viewer.js";

const byID = (id) => document.getElementById(id);
const feedLength = 100;
const recentEvents = 20; // how many past events the feed shows when the page opens

// MARK: messages

function showNotice(text, kind = "error") {
  byID("notice-text").textContent = text;
  byID("notice").dataset.kind = kind;
  byID("notice").hidden = false;
}

function hideNotice() {
  byID("notice").hidden = true;
}

byID("notice-close").addEventListener("click", hideNotice);

function setConnection(state, text) {
  const element = byID("connection");
  element.dataset.state = state;
  element.textContent = text;
}

// MARK: the token, asked for once and kept for the tab

function askToken(reason) {
  const dialog = byID("token-dialog");
  const input = byID("token-input");
  byID("token-reason").textContent = reason;
  byID("token-forget").hidden = !storedToken();
  input.value = "";
  return new Promise((resolve) => {
    dialog.addEventListener(
      "close",
      () => {
        if (dialog.returnValue === "save" && input.value.trim()) {
          resolve(input.value.trim());
          return;
        }
        if (dialog.returnValue === "forget") storeToken(null);
        resolve(null);
      },
      { once: true },
    );
    dialog.returnValue = "cancel";
    dialog.showModal();
    input.focus();
  });
}

setTokenPrompt(askToken);
byID("token-button").addEventListener("click", async () => {
  const token = await askToken(
    storedToken()
      ? "A token is kept for this tab. Type another to replace it, or forget it."
      : "If the service has an access token, type it here: changes (uploads, deletions, resolutions) need it.",
  );
  if (token) {
    storeToken(token);
    showNotice("The token is kept for this tab.", "info");
  }
});

// MARK: the list, a page at a time

const pageSize = 100; // what the page reads first, and reads more by
const largestPage = 1000; // the most the service puts in a page: a refresh reads what is shown in few requests
const moreMargin = 400; // how near the viewport the "more" button comes before the next page is read (px)

const list = new DocumentList({ body: byID("document-rows"), empty: byID("empty-list"), count: byID("document-count") });
const stateFilter = byID("state-filter");
const moreButton = byID("more-button");

// What the list shows: the state asked of the service ("" for every state), the summaries read so far in the
// service's order, the cursor of the page after them (null when none follows), and whether the walk reached the end.
let shown = { state: stateFilter.value, summaries: [], next: null, complete: false };

// Reads of the list run one after another: a page appended while the list is read again would be lost.
let queue = Promise.resolve();
function enqueue(work) {
  const run = queue.then(work);
  queue = run.catch(() => {});
  return run.catch((error) => showNotice(`Cannot read the list of documents: ${error.message}`));
}

/** One page of the listing: `state` asked of the service (not filtered here), after `cursor`. */
function readPage(state, limit, cursor) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (state) query.append("state", state);
  if (cursor) query.append("cursor", cursor);
  return getJSON(`/documents?${query}`, "reading the list");
}

function render() {
  list.show(shown.summaries, { state: shown.state, more: shown.next !== null });
  list.markOpen(viewer.documentID);
  moreButton.hidden = shown.next === null;
  // A window tall enough to show the button after this page: read the next one at once.
  if (!moreButton.hidden) requestAnimationFrame(() => nearViewport(moreButton) && loadMore());
}

function nearViewport(element) {
  return !element.hidden && element.getBoundingClientRect().top < window.innerHeight + moreMargin;
}

let pendingRefresh = null;

/**
 * Reads again what is shown, from the first page: as many documents as are listed (a page at least), or every one
 * when the walk had reached the end, so that a new document shows there. Calls made while one waits share it.
 */
function refreshList() {
  pendingRefresh ??= enqueue(async () => {
    pendingRefresh = null;
    const { state } = shown;
    const wanted = shown.complete ? Infinity : Math.max(pageSize, shown.summaries.length);
    const summaries = [];
    let next = null;
    do {
      const page = await readPage(state, Math.min(largestPage, wanted - summaries.length), next);
      summaries.push(...page.documents);
      next = page.next;
    } while (next !== null && summaries.length < wanted);
    shown = { state, summaries, next, complete: next === null };
    render();
  });
  return pendingRefresh;
}

let pendingMore = null;

/** Reads the page after the ones shown, if there is one (calls made while one waits share it). */
function loadMore() {
  if (shown.next === null) return Promise.resolve();
  pendingMore ??= enqueue(async () => {
    moreButton.disabled = true;
    try {
      const { state, summaries, next } = shown;
      if (next === null) return; // the list was read again meanwhile, to its end
      const page = await readPage(state, pageSize, next);
      shown = { state, summaries: summaries.concat(page.documents), next: page.next, complete: page.next === null };
      render();
    } finally {
      moreButton.disabled = false;
      pendingMore = null;
    }
  });
  return pendingMore;
}

/** Shows the first page of the documents in the state chosen (the service filters). */
function showState(state) {
  return enqueue(async () => {
    const page = await readPage(state, pageSize, null);
    list.clear();
    shown = { state, summaries: page.documents, next: page.next, complete: page.next === null };
    render();
  });
}

stateFilter.addEventListener("change", () => showState(stateFilter.value));
moreButton.addEventListener("click", () => loadMore());
// Scrolling near the end of the list reads the next page.
new IntersectionObserver((entries) => {
  if (entries.some((entry) => entry.isIntersecting)) loadMore();
}, { rootMargin: `0px 0px ${moreMargin}px 0px` }).observe(moreButton);

// MARK: the document view and its actions

const viewer = new DocumentViewer({
  onResolve: resolve,
  onDelete: confirmDelete,
  onClose: () => {
    location.hash = "";
  },
});

function titleOf(info) {
  return info.metadata?.title || info.title || info.id;
}

async function resolve(info, resolution) {
  const what = `${resolution} “${titleOf(info)}”`;
  try {
    const response = await change("POST", `/documents/${encodeURIComponent(info.id)}/conflict/resolve`, {
      body: JSON.stringify({ resolution }),
      // The version the person looked at: a document that changed since is refused (412), not resolved blind.
      headers: { "Content-Type": "application/json", "If-Match": info.etag },
      what,
    });
    await jsonOf(response);
    hideNotice();
    if (resolution === "close") location.hash = "";
    else await viewer.reload();
    await refreshList();
  } catch (error) {
    showNotice(error.message);
  }
}

function confirmDelete(info) {
  const dialog = byID("confirm-dialog");
  byID("confirm-text").textContent =
    `“${titleOf(info)}” (${info.id}) leaves the store` +
    (info.origin === "upload" ? " and its file is deleted." : "; its registered files stay where they are.");
  dialog.addEventListener(
    "close",
    async () => {
      if (dialog.returnValue !== "confirm") return;
      try {
        await change("DELETE", `/documents/${encodeURIComponent(info.id)}`, {
          headers: { "If-Match": info.etag },
          what: `delete “${titleOf(info)}”`,
        });
        hideNotice();
        showNotice(`Deleted “${titleOf(info)}”.`, "info");
        location.hash = "";
        await refreshList();
      } catch (error) {
        showNotice(error.message);
      }
    },
    { once: true },
  );
  dialog.returnValue = "cancel";
  dialog.showModal();
}

function route() {
  const match = /^#\/documents\/([^/]+)(?:\/pages\/([0-9]+))?$/.exec(location.hash);
  if (match) {
    const id = decodeURIComponent(match[1]);
    list.markOpen(id);
    viewer.open(id, match[2] ? Number(match[2]) : null);
  } else {
    viewer.close();
    list.markOpen(null);
  }
}

window.addEventListener("hashchange", route);

// MARK: search: each result opens its document at its page

const searchStatus = byID("search-status");
const searchResults = byID("search-results");

/** The nodes of a snippet the service sent as HTML (escaped text, matches in <mark>), built without innerHTML. */
function snippetNodes(html) {
  const unescape = (text) =>
    text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, "&");
  const nodes = [];
  let marked = false;
  for (const part of html.split(/(<mark>|<\/mark>)/)) {
    if (part === "<mark>" || part === "</mark>") {
      marked = part === "<mark>";
    } else if (part) {
      const node = marked ? document.createElement("mark") : document.createTextNode(unescape(part));
      if (marked) node.textContent = unescape(part);
      nodes.push(node);
    }
  }
  return nodes;
}

function searchHit(hit) {
  const item = document.createElement("li");
  const link = document.createElement("a");
  const page = hit.page || 1;
  link.href = `#/documents/${encodeURIComponent(hit.document)}/pages/${page}`;
  link.className = "search-hit";
  const title = document.createElement("strong");
  title.textContent = hit.title || hit.document;
  const place = document.createElement("span");
  place.className = "search-place";
  if (!hit.page) place.textContent = "title, author, subject or keywords";
  else if (hit.label && hit.label !== String(hit.page)) place.textContent = `page ${hit.label} (${hit.page})`;
  else place.textContent = `page ${hit.page}`;
  const snippet = document.createElement("span");
  snippet.className = "snippet";
  snippet.append(...snippetNodes(hit.snippet));
  link.append(title, " ", place, snippet);
  item.append(link);
  return item;
}

byID("search-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const q = byID("search-input").value.trim();
  if (!q) {
    searchStatus.hidden = true;
    searchResults.hidden = true;
    return;
  }
  searchStatus.hidden = false;
  searchStatus.textContent = "Searching…";
  try {
    const answer = await getJSON(`/search?${new URLSearchParams({ q, limit: "20" })}`, "searching");
    searchResults.replaceChildren(...answer.results.map(searchHit));
    searchResults.hidden = answer.results.length === 0;
    const count = `${answer.results.length}${answer.next ? " or more" : ""}`;
    searchStatus.textContent =
      answer.results.length === 0 ? "Nothing found." : `${count} ${answer.results.length === 1 ? "page" : "pages"} found`;
  } catch (error) {
    searchResults.hidden = true;
    searchStatus.textContent = error.message;
  }
});

// MARK: uploads, by the file picker and by drag and drop

async function upload(files) {
  const pdfs = [...files].filter((file) => file.type === "application/pdf" || /\.pdf$/i.test(file.name));
  if (pdfs.length === 0) {
    showNotice("Only PDF files can be uploaded.");
    return;
  }
  for (const file of pdfs) {
    try {
      const response = await change("POST", "/documents", {
        body: file,
        headers: { "Content-Type": "application/pdf" },
        what: `upload “${file.name}”`,
      });
      const info = await jsonOf(response);
      showNotice(`Uploaded “${file.name}” as ${info.id}.`, "info");
    } catch (error) {
      showNotice(`Cannot upload “${file.name}”: ${error.message}`);
    }
  }
  await refreshList();
}

byID("upload-input").addEventListener("change", async (event) => {
  const input = event.target;
  await upload(input.files);
  input.value = "";
});

const overlay = byID("drop-overlay");
let dragDepth = 0;
const carriesFiles = (event) => [...(event.dataTransfer?.types || [])].includes("Files");
document.addEventListener("dragenter", (event) => {
  if (!carriesFiles(event)) return;
  dragDepth += 1;
  overlay.hidden = false;
});
document.addEventListener("dragleave", () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (dragDepth === 0) overlay.hidden = true;
});
document.addEventListener("dragover", (event) => {
  if (!carriesFiles(event)) return;
  event.preventDefault();
  event.dataTransfer.dropEffect = "copy";
});
document.addEventListener("drop", (event) => {
  if (!carriesFiles(event)) return;
  event.preventDefault();
  dragDepth = 0;
  overlay.hidden = true;
  upload(event.dataTransfer.files);
});

// MARK: the change feed

const feed = byID("feed");

function describe(event) {
  switch (event.type) {
    case "moved": return `${event.from} → ${event.to}`;
    case "conflict": return `${event.conflict}: ${event.file || ""}`;
    case "resolved": return `by ${event.resolution}`;
    case "damaged": return `${event.file}: ${event.reason}`;
    default: return event.file || "";
  }
}

function addToFeed(event) {
  const item = document.createElement("li");
  item.dataset.type = event.type;
  item.dataset.document = event.document;
  const time = document.createElement("time");
  time.dateTime = event.at;
  time.textContent = formatDate(event.at);
  const type = document.createElement("span");
  type.className = `event-type state-${event.type}`;
  type.textContent = event.type;
  const link = document.createElement("a");
  link.href = `#/documents/${encodeURIComponent(event.document)}`;
  link.textContent = list.summary(event.document)?.title || event.document;
  const detail = document.createElement("span");
  detail.className = "detail";
  detail.textContent = describe(event);
  item.append(time, " ", type, " ", link, " ", detail);
  feed.prepend(item);
  while (feed.childElementCount > feedLength) feed.lastElementChild.remove();
  byID("feed-empty").hidden = true;
}

let viewerReload = null;

function handleEvent(event) {
  addToFeed(event);
  refreshList();
  if (event.document === viewer.documentID) {
    viewer.noteEvent(event);
    clearTimeout(viewerReload);
    viewerReload = setTimeout(() => viewer.reload(), 50);
  }
}

// MARK: start

async function start() {
  // The feed starts a few events before the one the service had reached before the list was read: the feed
  // shows what just happened, and no change falls between the list and the feed.
  let since = null;
  try {
    since = Math.max(0, (await getJSON("/health", "asking the service")).lastEventId - recentEvents);
  } catch (error) {
    showNotice(`The service does not answer: ${error.message}`);
  }
  await refreshList();
  performance.mark("quire:list-rendered");
  // The rest waits for the list's first paint (the next frame's task), so nothing delays it.
  requestAnimationFrame(() =>
    setTimeout(() => {
      performance.mark("quire:list-painted");
      route();
      followEvents(since, {
        onEvent: handleEvent,
        onStatus: setConnection,
        onRestart: () => refreshList(),
      });
    }, 0),
  );
}

start();
