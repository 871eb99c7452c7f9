// The change feed, `GET /events`, read with fetch() and a stream reader rather than EventSource: the page
// chooses the first `Last-Event-ID` itself (the id /health reported before the list was read, so that no change
// between the two readings is missed), and after a dropped connection it resumes from the last event it handled,
// so the log replays whatever happened while it was away.

/** Parses Server-Sent Events from text chunks; calls `onEvent({id, type, data})` for each complete event. */
export class EventStreamParser {
  constructor(onEvent) {
    this.onEvent = onEvent;
    this.buffer = "";
    this.reset();
  }

  reset() {
    this.id = null;
    this.type = "";
    this.data = [];
  }

  push(chunk) {
    this.buffer += chunk;
    const lines = this.buffer.split(/\r\n|\r(?!$)|\n/); // a final \r may be half of \r\n
    this.buffer = lines.pop();
    for (const line of lines) this.line(line);
  }

  line(line) {
    if (line === "") {
      if (this.data.length > 0) {
        this.onEvent({ id: this.id, type: this.type || "message", data: this.data.join("\n") });
      }
      this.reset();
      return;
    }
    if (line.startsWith(":")) return; // a comment: `: connected`, `: keep-alive`
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "id") this.id = value;
    else if (field === "event") this.type = value;
    else if (field === "data") this.data.push(value);
  }
}

/**
 * Follows the feed from event id `since` (null: from now on) until the page goes away. Calls `onEvent(event)`
 * with each event's parsed JSON data, `onStatus(state, text)` when the connection changes ("live", "reconnecting",
 * "lost"), and `onRestart()` when the service no longer has the events after the last one seen (its store was
 * replaced): the caller reloads what it shows.
 */
export async function followEvents(since, { onEvent, onStatus, onRestart }) {
  let lastID = since;
  let delay = 500;
  for (;;) {
    let reason = "the connection closed";
    try {
      const headers = { Accept: "text/event-stream" };
      if (lastID !== null) headers["Last-Event-ID"] = String(lastID);
      const response = await fetch("/events", { headers, cache: "no-store" });
      if (response.status === 400 && lastID !== null) {
        // A Last-Event-ID beyond the newest event: start afresh from the service's present.
        lastID = null;
        onRestart();
        continue;
      }
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      onStatus("live", "Live: changes appear as they happen");
      delay = 500;
      const parser = new EventStreamParser((event) => {
        let data;
        try {
          data = JSON.parse(event.data);
        } catch {
          return;
        }
        if (event.id !== null && /^[0-9]+$/.test(event.id)) lastID = Number(event.id);
        onEvent(data);
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(value);
      }
    } catch (error) {
      reason = error.message || String(error);
    }
    onStatus("reconnecting", `Reconnecting to the change feed (${reason})…`);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 10_000);
  }
}
