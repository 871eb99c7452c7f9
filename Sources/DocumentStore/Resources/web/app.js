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

// MARK: the list

const list = new DocumentList({
  body: byID("document-rows"),
  empty: byID("empty-list"),
  count: byID("document-count"),
  filter: byID("state-filter"),
});

let refreshing = null;
let refreshAgain = false;

/** Reads the list again (coalescing calls made while a read is under way). */
function refreshList() {
  if (refreshing) {
    refreshAgain = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      do {
        refreshAgain = false;
        const { documents } = await getJSON("/documents", "reading the list");
        list.show(documents.reverse());
        list.markOpen(viewer.documentID);
      } while (refreshAgain);
    } catch (error) {
      showNotice(`Cannot read the list of documents: ${error.message}`);
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

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
  const match = /^#\/documents\/([^/]+)$/.exec(location.hash);
  if (match) {
    const id = decodeURIComponent(match[1]);
    list.markOpen(id);
    viewer.open(id);
  } else {
    viewer.close();
    list.markOpen(null);
  }
}

window.addEventListener("hashchange", route);

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
