// The document view: the open document's pages at a readable size (one at a time, with paging), the text of the
// page, its metadata and files, and, when it is in conflict, both sides of the conflict and the three
// resolutions.

import { getJSON, getText } from "./api.js";
import { formatDate, formatSize, pageImageURL, stateBadge } from "./list.js";

const pageDPI = 96;

function byID(id) {
  return document.getElementById(id);
}

/** Fills a <dl> with [term, value] pairs (values are text; empty ones show as "—"). */
function fillFacts(list, facts) {
  const fragment = document.createDocumentFragment();
  for (const [term, value] of facts) {
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.textContent = value === null || value === undefined || value === "" ? "—" : String(value);
    fragment.append(dt, dd);
  }
  list.replaceChildren(fragment);
}

function shortTag(etag) {
  return (etag || "").replace(/"/g, "").slice(0, 12);
}

/** The view of one document. */
export class DocumentViewer {
  /**
   * `onResolve(info, resolution)` and `onDelete(info)` perform the actions (the page asks for a token when
   * needed); `onClose()` is called when the person closes the view.
   */
  constructor({ onResolve, onDelete, onClose }) {
    this.section = byID("viewer");
    this.info = null;
    this.page = 1;
    this.conflictEvent = null; // the latest conflict event of the open document: when, and which file
    this.loading = 0;
    byID("viewer-close").addEventListener("click", () => onClose());
    byID("page-previous").addEventListener("click", () => this.showPage(this.page - 1));
    byID("page-next").addEventListener("click", () => this.showPage(this.page + 1));
    byID("page-number").addEventListener("change", (event) => this.showPage(Number(event.target.value)));
    byID("page-text-details").addEventListener("toggle", () => this.loadText());
    byID("delete-button").addEventListener("click", () => this.info && onDelete(this.info));
    for (const button of this.section.querySelectorAll("[data-resolution]")) {
      button.addEventListener("click", () => this.info && onResolve(this.info, button.dataset.resolution));
    }
    this.section.addEventListener("keydown", (event) => {
      if (event.target.closest("input, textarea, select")) return;
      if (event.key === "PageDown" || event.key === "ArrowRight") this.showPage(this.page + 1);
      else if (event.key === "PageUp" || event.key === "ArrowLeft") this.showPage(this.page - 1);
      else return;
      event.preventDefault();
    });
  }

  /** The id of the open document, or null. */
  get documentID() {
    return this.section.hidden ? null : this.openID;
  }

  /** Opens document `id` (its info is read from the service), at page `page` when one is given. */
  async open(id, page = null) {
    const changed = this.openID !== id;
    this.openID = id;
    if (changed) {
      this.page = 1;
      this.conflictEvent = null;
      this.info = null;
      byID("viewer-title").textContent = "Loading…";
    }
    if (page) this.page = page;
    this.section.hidden = false;
    await this.reload();
    if (changed) byID("viewer-title").focus();
  }

  /** Hides the view. */
  close() {
    this.section.hidden = true;
    this.openID = null;
    this.info = null;
  }

  /** Notes an event about the open document (conflicts keep the time and file for the "on disk" side). */
  noteEvent(event) {
    if (event.type === "conflict") this.conflictEvent = event;
    if (event.type === "resolved" || event.type === "saved") this.conflictEvent = null;
  }

  /** Reads the open document's info again and shows it. */
  async reload() {
    const id = this.openID;
    if (!id) return;
    const ticket = ++this.loading;
    let info;
    try {
      info = await getJSON(`/documents/${encodeURIComponent(id)}`, "reading the document");
    } catch (error) {
      if (ticket !== this.loading || this.openID !== id) return;
      this.showUnavailable(error);
      return;
    }
    if (ticket !== this.loading || this.openID !== id) return;
    this.info = info;
    this.render();
  }

  showUnavailable(error) {
    byID("viewer-title").textContent = this.info?.metadata?.title || this.openID;
    byID("viewer-summary").textContent = error.status === 404 ? "This document is no longer in the store." : error.message;
    byID("viewer-state").replaceChildren();
    byID("conflict").hidden = true;
  }

  render() {
    const info = this.info;
    byID("viewer-title").textContent = info.metadata.title || `(untitled) ${info.id}`;
    byID("viewer-state").replaceChildren(stateBadge(info.state));
    byID("viewer-summary").textContent =
      `${info.pageCount} page${info.pageCount === 1 ? "" : "s"}, ${formatSize(info.size)}, ` +
      `${info.origin === "upload" ? "uploaded" : "registered"}, updated ${formatDate(info.updatedAt)}` +
      (info.damage ? ` — damaged: ${info.damage.reason}` : "");
    this.section.dataset.state = info.state;
    this.section.dataset.etag = info.etag;
    this.renderConflict();
    fillFacts(byID("metadata"), [
      ["Title", info.metadata.title], ["Author", info.metadata.author], ["Subject", info.metadata.subject],
      ["Keywords", info.metadata.keywords], ["Creator", info.metadata.creator], ["Producer", info.metadata.producer],
      ["Created", info.metadata.creationDate && formatDate(info.metadata.creationDate)],
      ["Modified", info.metadata.modificationDate && formatDate(info.metadata.modificationDate)],
      ["Encrypted", info.encrypted ? "yes" : "no"], ["Id", info.id], ["Tag", shortTag(info.etag)],
    ]);
    const rows = document.createDocumentFragment();
    for (const file of info.files) {
      const row = document.createElement("tr");
      const path = document.createElement("td");
      path.className = "path";
      path.textContent = file.path;
      const size = document.createElement("td");
      size.className = "number";
      size.textContent = formatSize(file.size);
      const tag = document.createElement("td");
      tag.className = "tag";
      tag.textContent = shortTag(file.etag);
      tag.title = file.etag;
      row.append(path, size, tag);
      rows.append(row);
    }
    byID("files").replaceChildren(rows);
    this.showPage(Math.min(Math.max(this.page, 1), Math.max(info.pageCount, 1)), true);
  }

  renderConflict() {
    const info = this.info;
    const panel = byID("conflict");
    const inConflict = info.state === "conflict" || info.state === "deleted" || info.conflict !== null;
    panel.hidden = !inConflict;
    if (!inConflict) return;
    const deleted = info.conflict === "deletion" || info.state === "deleted";
    const file = this.conflictEvent?.file || info.files[0]?.path;
    byID("conflict-text").textContent = deleted
      ? `The file ${file} was deleted while the store held this document. Save writes the document back to the file; close drops the document.`
      : `The file ${file} changed on disk while this document had unsaved edits. Reload drops the edits and reads the file, save writes the edits over it, close drops the document.`;
    const storeSize = info.files.reduce((total, each) => total + each.size, 0);
    fillFacts(byID("conflict-store"), [
      ["Tag", shortTag(info.etag)], ["Title", info.metadata.title], ["Pages", info.pageCount],
      ["Size", formatSize(storeSize)], ["Last change", formatDate(info.updatedAt)],
    ]);
    this.renderDiskSide({ file, deleted });
    // The file as it is on disk now comes from the conflict report.
    const id = info.id;
    getJSON(`/documents/${encodeURIComponent(id)}/conflict`, "reading the conflict").then((report) => {
      if (this.openID !== id || !report.conflict) return;
      this.renderDiskSide({
        file: report.conflict.file, deleted: report.conflict.type === "deletion",
        size: report.conflict.fileSize, etag: report.conflict.fileEtag,
      });
    }, () => {});
  }

  renderDiskSide({ file, deleted, size, etag }) {
    const missing = deleted ? "(no file)" : null;
    fillFacts(byID("conflict-disk"), [
      ["File", file],
      ["Tag", missing || (etag && shortTag(etag))],
      ["Size", missing || (size !== undefined && size !== null ? formatSize(size) : null)],
      ["Changed", this.conflictEvent ? formatDate(this.conflictEvent.at) : null],
    ]);
  }

  /** Shows page `number` (clamped to the document's pages); `force` reloads its image and text. */
  showPage(number, force = false) {
    const info = this.info;
    if (!info || !Number.isFinite(number)) return;
    const count = info.pageCount;
    const page = Math.min(Math.max(Math.trunc(number), 1), Math.max(count, 1));
    if (page === this.page && !force) return;
    this.page = page;
    byID("page-number").value = String(page);
    byID("page-number").max = String(Math.max(count, 1));
    byID("page-of").textContent = `of ${count}`;
    byID("page-previous").disabled = page <= 1;
    byID("page-next").disabled = page >= count;
    const image = byID("page-image");
    const readable = count > 0 && info.state !== "deleted" && info.state !== "damaged";
    const label = info.pages[page - 1]?.label;
    image.alt = `Page ${page}${label ? ` (${label})` : ""} of ${info.metadata.title || info.id}`;
    const source = readable ? pageImageURL(info, page, pageDPI) : "";
    if (source && image.getAttribute("src") !== source) image.src = source;
    if (!source) image.removeAttribute("src");
    image.hidden = !source;
    byID("page-caption").textContent = readable ? `Page ${page}${label ? ` (${label})` : ""}` : "No page to show";
    this.textFor = null;
    this.loadText();
  }

  async loadText() {
    const details = byID("page-text-details");
    const info = this.info;
    if (!details.open || !info) return;
    const key = `${info.id} ${info.etag} ${info.updatedAt} ${this.page}`;
    if (this.textFor === key) return;
    this.textFor = key;
    const text = byID("page-text");
    text.textContent = "Loading…";
    try {
      const body = await getText(`/documents/${encodeURIComponent(info.id)}/pages/${this.page}/text`, "reading text");
      if (this.textFor === key) text.textContent = body || "(this page has no text)";
    } catch (error) {
      if (this.textFor === key) text.textContent = error.message;
    }
  }
}
