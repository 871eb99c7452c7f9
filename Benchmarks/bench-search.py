#!/usr/bin/env python3
"""Full-text search on one node, release build, one run (make bench-search): prints one table.

- indexing: pages per second the index takes in (uploads of the real PDFs, text extracted in the workers at
  background priority, while a client reads pages' text), against `pdftotext FILE -` on the same files, run just
  before and just after (their average);
- a change -> searchable: a registered file replaced by rename with a new word, until GET /search finds it
  (p50, p99 of CHANGES changes);
- queries at DOCUMENTS one-page documents plus the real PDFs: one word, a phrase (p50, p99 of QUERIES each);
- the index's size on disk beyond the text it holds, against that text (SQLite's dbstat of the search% objects).

Usage: bench-search.py BUILD_DIR DOCUMENTS PDF... (BUILD_DIR holds quire-store and quire-pdf).
"""
import http.client
import json
import os
import queue
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_service import free_port, log, start_service, stop_service  # noqa: E402
from quire_service import one_page_pdf as one_page_pdf_at  # noqa: E402

CLIENTS = 8
CHANGES = 100
QUERIES = 200
READ_ALONE = 2.0


def one_page_pdf(words):
    """A one-page PDF showing `words` at 14 points."""
    return one_page_pdf_at(words, font_size=14)


def request(connection, method, path, body=None, headers=None):
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    if response.status >= 300:
        raise SystemExit(f"{method} {path}: HTTP {response.status}: {data[:300]!r}")
    return json.loads(data) if data and "json" in (response.getheader("Content-Type") or "") else data


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def metric(port, name):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    text = request(connection, "GET", "/metrics").decode()
    connection.close()
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def upload_all(port, bodies):
    """Uploads every body with CLIENTS threads; returns the ids."""
    work = queue.Queue()
    for body in bodies:
        work.put(body)
    ids, lock = [], threading.Lock()

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            try:
                body = work.get_nowait()
            except queue.Empty:
                break
            info = request(connection, "POST", "/documents", body, {"Content-Type": "application/pdf"})
            with lock:
                ids.append(info["id"])
        connection.close()

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return ids


def wait_indexed(port, documents, timeout):
    deadline = time.monotonic() + timeout
    while metric(port, "quire_search_documents_indexed_total") < documents:
        if time.monotonic() > deadline:
            raise SystemExit(f"the index did not take in {documents} documents within {timeout} s")
        time.sleep(0.05)


def search(connection, query):
    return request(connection, "GET", "/search?" + urllib.parse.urlencode({"q": query, "limit": "20"}))


def main():
    build, documents, pdfs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    work = tempfile.mkdtemp(prefix="quire-bench-search-")
    for name in ("store", "root"):
        os.makedirs(f"{work}/{name}")
    os.makedirs(f"{work}/coordination", mode=0o700)
    rows = []
    try:
        # pdftotext on the real PDFs: pages per second, one process at a time; measured just before and just after
        # the index takes them in, and averaged, so that a drift of this shared machine's speed between the two
        # measurements weighs on both sides alike.
        pages = {}
        for pdf in pdfs:
            info = subprocess.run(["pdfinfo", pdf], check=True, capture_output=True, text=True).stdout
            pages[pdf] = int(next(l.split()[-1] for l in info.splitlines() if l.startswith("Pages:")))

        def pdftotext_rate():
            started = time.monotonic()
            for pdf in pdfs:
                subprocess.run(["pdftotext", pdf, "-"], check=True, stdout=subprocess.DEVNULL)
            return sum(pages.values()) / (time.monotonic() - started)

        before = pdftotext_rate()
        log(f"pdftotext: {sum(pages.values())} pages at {before:.0f} pages/s")

        port = free_port()
        server, _ = start_service(build, work, port)
        try:
            # Indexing the real PDFs while a reader asks for pages' text.
            # The reader's latencies say what indexing costs interactive work: those of its first READ_ALONE
            # seconds (nothing else running) against those while the index takes the PDFs in.
            stop = threading.Event()
            latencies = []

            def reader(document):
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                while not stop.is_set():
                    started = time.monotonic()
                    request(connection, "GET", f"/documents/{document}/pages/1/text")
                    latencies.append(time.monotonic() - started)
                connection.close()

            warm = upload_all(port, [one_page_pdf("warm up")])
            wait_indexed(port, 1, 60)
            reading = threading.Thread(target=reader, args=(warm[0],))
            reading.start()
            time.sleep(READ_ALONE)  # the reader alone, for its baseline
            alone = list(latencies)
            bodies = [open(pdf, "rb").read() for pdf in pdfs]
            started = time.monotonic()
            upload_all(port, bodies)
            wait_indexed(port, 1 + len(pdfs), 600)
            elapsed = time.monotonic() - started
            stop.set()
            reading.join()
            during = latencies[len(alone):]
            ours = sum(pages.values()) / elapsed
            after = pdftotext_rate()
            peer = (before + after) / 2
            rows.append(("indexing, real PDFs, while serving", f"{ours:.0f} pages/s",
                         f"pdftotext {peer:.0f} pages/s ({before:.0f} before, {after:.0f} after): "
                         f"{ours / peer:.2f}x (target >= 0.8x)"))
            log(" | ".join(rows[-1]))
            rows.append(("a page's text while indexing", f"p50 {percentile(during, 0.5) * 1000:.2f} ms, "
                         f"p99 {percentile(during, 0.99) * 1000:.2f} ms ({len(during)} requests)",
                         f"alone p50 {percentile(alone, 0.5) * 1000:.2f} ms, p99 {percentile(alone, 0.99) * 1000:.2f} "
                         f"ms ({len(alone)} requests): p50 {percentile(during, 0.5) / percentile(alone, 0.5):.2f}x"))
            log(" | ".join(rows[-1]))

            # A change -> searchable.
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            path = f"{work}/root/changing.pdf"
            with open(path, "wb") as file:
                file.write(one_page_pdf("first version"))
            request(connection, "POST", "/documents", json.dumps({"files": [path]}).encode(),
                    {"Content-Type": "application/json"})
            latencies = []
            for number in range(CHANGES):
                word = f"change{number}x"
                with open(path + ".tmp", "wb") as file:
                    file.write(one_page_pdf(f"version {word}"))
                started = time.monotonic()
                os.rename(path + ".tmp", path)
                while not search(connection, word)["results"]:
                    if time.monotonic() - started > 10:
                        raise SystemExit(f"{word} not searchable within 10 s")
                    time.sleep(0.002)
                latencies.append(time.monotonic() - started)
            rows.append(("a change -> searchable", f"p50 {percentile(latencies, 0.5) * 1000:.0f} ms",
                         f"p99 {percentile(latencies, 0.99) * 1000:.0f} ms (target <= 1 s)"))
            log(" | ".join(rows[-1]))

            # Queries at `documents` one-page documents.
            log(f"uploading {documents} one-page documents")
            words = ["apple", "river", "stone", "cloud", "maple", "ember", "frost", "amber", "cedar", "delta"]
            bodies = [one_page_pdf(f"note {number} {words[number % 10]} {words[(number // 10) % 10]} "
                                   f"unique{number}") for number in range(documents)]
            before = metric(port, "quire_search_documents_indexed_total")
            started = time.monotonic()
            upload_all(port, bodies)
            uploaded = time.monotonic() - started
            wait_indexed(port, before + documents, 3600)
            log(f"{documents} uploaded in {uploaded:.0f} s, all indexed {time.monotonic() - started:.0f} s after the "
                "first upload")
            connection.close()  # idle past the service's idle timeout while the store filled
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for label, make in [("one word", lambda n: f"unique{n * 7919 % documents}"),
                                ("phrase", lambda n: f"\"{words[n % 10]} {words[(n // 10) % 10]}\"")]:
                times = []
                for number in range(QUERIES):
                    started = time.monotonic()
                    search(connection, make(number))
                    times.append(time.monotonic() - started)
                target = "50" if label == "one word" else "100"
                rows.append((f"query at {documents} documents, {label}",
                             f"p50 {percentile(times, 0.5) * 1000:.1f} ms",
                             f"p99 {percentile(times, 0.99) * 1000:.1f} ms (target <= {target} ms)"))
            connection.close()
        finally:
            stop_service(server)

        # The index's size: every b-tree page of the objects named search% (tables, their index, FTS5's shadow
        # tables), whole pages with their unused bytes, as dbstat counts them; the freelist (pages SQLite reuses
        # for the next writes) is no object's and is not counted. The text: the UTF-8 bytes of the pages' text the
        # index holds, which search_pages stores once.
        database = sqlite3.connect(f"{work}/store/catalog.sqlite")
        try:
            objects = database.execute(
                "SELECT name, sum(pgsize) FROM dbstat WHERE name LIKE 'search%' GROUP BY name ORDER BY 2 DESC"
            ).fetchall()
        except sqlite3.Error as error:
            objects = None
            log(f"dbstat is not available ({error}): no size figure")
        text_bytes = database.execute(
            "SELECT coalesce(sum(length(CAST(body AS BLOB))), 0) FROM search_pages").fetchone()[0]
        page_size = database.execute("PRAGMA page_size").fetchone()[0]
        database.close()
        if objects is not None:
            index_bytes = sum(size for _, size in objects)
            log(f"index objects ({page_size}-byte pages): "
                + ", ".join(f"{name} {size / 1e6:.2f} MB" for name, size in objects))
            beyond = (index_bytes - text_bytes) / max(1, text_bytes)
            rows.append(("the index on disk beyond its text", f"{(index_bytes - text_bytes) / 1e6:.1f} MB beyond "
                         f"{text_bytes / 1e6:.1f} MB of text", f"{beyond:.2f}x (target <= 1.5x; "
                         f"the whole index {index_bytes / max(1, text_bytes):.2f}x the text)"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| measure | result | against |")
    print("|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
