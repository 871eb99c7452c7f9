// The document list: one table row per document, keyed by id, in the service's listing order (oldest first). The
// page reads the list a page at a time (`GET /documents?limit=&state=&cursor=`, app.js); a refresh compares the
// new summaries with the shown ones and touches only the rows that changed, so a change feed that refreshes often
// stays cheap with thousands of documents. Thumbnails are the service's renders of page 1 at a small resolution,
// loaded only when their row comes near the viewport, a few at a time.

const thumbnailDPI = 12;
const thumbnailsAtOnce = 3;

/** Bytes as "12.3 KB". */
export function formatSize(bytes) {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = -1;
  do {
    value /= 1000;
    unit += 1;
  } while (value >= 1000 && unit < units.length - 1);
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** An RFC 3339 date for people. */
export function formatDate(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : timeFormat.format(date);
}

/** The URL of a page image, with the document's tag and update time in it, so a new version is a new URL. */
export function pageImageURL(summary, page, dpi) {
  const version = `${summary.etag.replace(/[^0-9a-f]/g, "").slice(0, 16)}-${Date.parse(summary.updatedAt) || 0}`;
  return `/documents/${encodeURIComponent(summary.id)}/pages/${page}/image?dpi=${dpi}&v=${version}`;
}

/** Loads thumbnails as their rows come into view, at most a few at once. */
class ThumbnailLoader {
  constructor() {
    this.waiting = [];
    this.running = 0;
    this.observer = new IntersectionObserver((entries) => this.seen(entries), { rootMargin: "200px 0px" });
  }

  watch(image) {
    this.observer.observe(image);
  }

  forget(image) {
    this.observer.unobserve(image);
  }

  seen(entries) {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      this.observer.unobserve(entry.target);
      this.waiting.push(entry.target);
    }
    this.next();
  }

  next() {
    while (this.running < thumbnailsAtOnce && this.waiting.length > 0) {
      const image = this.waiting.shift();
      if (!image.isConnected || !image.dataset.src) continue;
      this.running += 1;
      const done = () => {
        this.running -= 1;
        if (image.naturalWidth === 0) showNoPreview(image);
        this.next();
      };
      image.addEventListener("load", done, { once: true });
      image.addEventListener("error", done, { once: true });
      image.src = image.dataset.src;
    }
  }
}

/**
 * A thumbnail the service did not render: its image is hidden (a browser draws a broken-image icon for it) and its
 * cell shows a placeholder, which says "locked" when the document is encrypted (the service answers 401 without its
 * password).
 */
async function showNoPreview(image) {
  const source = image.dataset.src;
  image.removeAttribute("src");
  const cell = image.parentElement;
  cell.classList.add("no-preview");
  cell.title = "No preview of page 1";
  let status = 0;
  try {
    status = (await fetch(source, { method: "HEAD" })).status;
  } catch {
    return;
  }
  if (image.dataset.src !== source || status !== 401) return; // the row shows another version by now
  cell.classList.add("locked");
  cell.title = "Encrypted: its pages show once it is opened with its password";
}

/** The list of documents, in a table body. */
export class DocumentList {
  constructor({ body, empty, count }) {
    this.body = body;
    this.empty = empty;
    this.emptyText = empty.innerHTML;
    this.emptyState = "";
    this.count = count;
    this.rows = new Map(); // id → { row, summary }
    this.thumbnails = new ThumbnailLoader();
  }

  /** The summary of document `id`, if it is listed. */
  summary(id) {
    return this.rows.get(id)?.summary;
  }

  /**
   * Shows `summaries` in their order, changing only the rows that differ from what is shown. `state` is the state
   * the service was asked for ("" for every state) and `more` whether further pages follow: the count says both.
   */
  show(summaries, { state = "", more = false } = {}) {
    if (this.rows.size === 0) {
      // The first paint: every row built off the document, then added at once.
      const fragment = document.createDocumentFragment();
      for (const summary of summaries) {
        const row = this.makeRow(summary);
        this.rows.set(summary.id, { row, summary });
        fragment.append(row);
      }
      this.body.append(fragment);
    } else {
      const listed = new Set(summaries.map((summary) => summary.id));
      for (const [id, known] of this.rows) {
        if (listed.has(id)) continue;
        this.thumbnails.forget(known.row.querySelector("img"));
        known.row.remove();
        this.rows.delete(id);
      }
      let previous = null;
      for (const summary of summaries) {
        let known = this.rows.get(summary.id);
        if (known) {
          if (!sameSummary(known.summary, summary)) this.fill(known.row, summary);
          known.summary = summary;
        } else {
          known = { row: this.makeRow(summary), summary };
          this.rows.set(summary.id, known);
        }
        const expected = previous ? previous.nextElementSibling : this.body.firstElementChild;
        if (expected !== known.row) {
          if (previous) previous.after(known.row);
          else this.body.prepend(known.row);
        }
        previous = known.row;
      }
    }
    this.describe(state, more);
  }

  /** Empties the list (another state is asked for). */
  clear() {
    for (const { row } of this.rows.values()) this.thumbnails.forget(row.querySelector("img"));
    this.body.replaceChildren();
    this.rows.clear();
  }

  /** Marks the row of document `id` as the one open in the viewer. */
  markOpen(id) {
    for (const row of this.body.querySelectorAll("tr[aria-current]")) row.removeAttribute("aria-current");
    const known = id && this.rows.get(id);
    if (known) known.row.setAttribute("aria-current", "true");
  }

  /** The count ("3 documents", "100 documents in state dirty shown; more follow") and the empty message. */
  describe(state, more) {
    const shown = this.rows.size;
    let text = `${shown} document${shown === 1 ? "" : "s"}`;
    if (state) text += ` in state ${state}`;
    if (more) text += " shown; more follow";
    this.count.textContent = text;
    this.empty.hidden = shown > 0 || more;
    if (this.emptyState !== state) {
      this.emptyState = state;
      if (state) this.empty.textContent = `No documents in state ${state}.`;
      else this.empty.innerHTML = this.emptyText; // the page's own markup, put back
    }
  }

  makeRow(summary) {
    const row = document.createElement("tr");
    row.dataset.id = summary.id;
    const thumbnail = document.createElement("td");
    thumbnail.className = "thumbnail";
    const image = document.createElement("img");
    image.alt = "";
    image.width = 34;
    image.height = 44;
    image.decoding = "async";
    thumbnail.append(image);
    const title = document.createElement("td");
    title.className = "title";
    const link = document.createElement("a");
    title.append(link);
    const id = document.createElement("span");
    id.className = "id";
    title.append(id);
    row.append(thumbnail, title, cell("number pages"), cell("number size"), cell("state-cell"), cell("updated"));
    this.fill(row, summary);
    return row;
  }

  fill(row, summary) {
    const [thumbnail, title, pages, size, state, updated] = row.children;
    const link = title.firstChild;
    link.href = `#/documents/${encodeURIComponent(summary.id)}`;
    link.textContent = summary.title || "(untitled)";
    title.lastChild.textContent = summary.id;
    pages.textContent = String(summary.pageCount);
    size.textContent = formatSize(summary.size);
    state.replaceChildren(stateBadge(summary.state));
    updated.textContent = formatDate(summary.updatedAt);
    updated.title = summary.updatedAt;
    row.dataset.state = summary.state;
    row.dataset.etag = summary.etag;
    const image = thumbnail.firstChild;
    const readable = summary.pageCount > 0 && summary.state !== "deleted" && summary.state !== "damaged";
    const source = readable ? pageImageURL(summary, 1, thumbnailDPI) : "";
    if (image.dataset.src !== source) {
      image.dataset.src = source;
      image.removeAttribute("src");
      thumbnail.classList.remove("no-preview", "locked");
      thumbnail.removeAttribute("title");
      if (source) this.thumbnails.watch(image);
    }
  }
}

function cell(className) {
  const element = document.createElement("td");
  element.className = className;
  return element;
}

/** A state as a badge (its text is the state, so color is never the only sign). */
export function stateBadge(state) {
  const badge = document.createElement("span");
  badge.className = `state state-${state}`;
  badge.textContent = state;
  return badge;
}

function sameSummary(a, b) {
  return a.etag === b.etag && a.state === b.state && a.updatedAt === b.updatedAt && a.title === b.title
    && a.pageCount === b.pageCount && a.size === b.size;
}
