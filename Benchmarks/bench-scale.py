"""A store of N documents on one node (release build): what each operation costs as the store grows.

usage: bench-scale.py BUILD_DIR [N]     (N: BENCH_SCALE_DOCUMENTS, default 100,000)

Fills a fresh store with N distinct one-page PDFs uploaded by 8 clients over keep-alive connections, then
measures, and prints one table:
- uploads/s in the first and in the last tenth of the fill, and their ratio;
- resident memory of the service when empty and when full, and the growth per document;
- GET /documents?limit=100 (pages walked through `next`) and GET /documents?state=dirty&limit=100: p50 and p99;
- an external change of a document's file (an atomic rename, as `mv` does) to its `changed` SSE event: median;
- the CPU time an idle service spends in 5 s;
- a graceful stop (SIGTERM to exit), a restart to /health answering, and to the first page.
Every request must succeed; the run stops at the first that does not.
"""
import http.client
import json
import os
import queue
import shutil
import statistics
import sys
import tempfile
import threading
import time

from quire_service import event_stream, free_port, log, next_event, one_page_pdf, start_service, stop_service

CLIENTS = 8


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def request(connection, method, path, body=None, headers=None):
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    return response.status, dict(response.getheaders()), data


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def fill(port, count):
    """Uploads `count` documents with CLIENTS threads; returns the instants each upload finished and the ids."""
    numbers = queue.Queue()
    for number in range(count):
        numbers.put(number)
    finished = []
    ids = [None] * count
    lock = threading.Lock()
    failures = []

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while not failures:
            try:
                number = numbers.get_nowait()
            except queue.Empty:
                break
            status, _, body = request(
                connection, "POST", "/documents", one_page_pdf(f"Document {number}"), {"Content-Type": "application/pdf"})
            if status != 201:
                failures.append(f"upload {number}: {status} {body[:200]!r}")
                break
            ids[number] = json.loads(body)["id"]
            with lock:
                finished.append(time.monotonic())
        connection.close()

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise SystemExit(failures[0])
    return sorted(finished), ids


def tenth_rate(instants, which):
    tenth = max(1, len(instants) // 10)
    part = instants[:tenth] if which == "first" else instants[-tenth:]
    start = instants[0] if which == "first" else instants[-tenth - 1]
    return tenth / max(part[-1] - start, 1e-9)


def page_latencies(port, query, pages):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    latencies = []
    cursor = None
    for _ in range(pages):
        path = f"/documents?{query}" + (f"&cursor={cursor}" if cursor else "")
        started = time.monotonic()
        status, _, body = request(connection, "GET", path)
        latencies.append((time.monotonic() - started) * 1000)
        if status != 200:
            raise SystemExit(f"GET {path}: {status} {body[:200]!r}")
        cursor = json.loads(body)["next"]  # None after the last page: the walk starts over
    connection.close()
    return latencies


def sse_latency(port, ids, rounds):
    """Median ms from an atomic replace of a clean document's file to its `changed` event."""
    stream = event_stream(port)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    delays = []
    for index in range(rounds):
        document = ids[(index * 7919) % len(ids)]
        status, _, body = request(connection, "GET", f"/documents/{document}")
        path = json.loads(body)["files"][0]["path"]
        staging = os.path.join(os.path.dirname(path), f".bench-staging-{index}")
        with open(staging, "wb") as handle:
            handle.write(one_page_pdf(f"Document {10_000_000 + index}"))
        started = time.monotonic()
        os.rename(staging, path)
        next_event(stream, "changed", containing=document)
        delays.append((time.monotonic() - started) * 1000)
        time.sleep(0.05)  # past the debounce window: each round is its own change
    stream.close()
    connection.close()
    return statistics.median(delays)


def main():
    build = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else int(os.environ.get("BENCH_SCALE_DOCUMENTS", "100000"))
    work = tempfile.mkdtemp(prefix="quire-bench-scale-")
    for name in ("store", "root"):
        os.makedirs(f"{work}/{name}")
    os.makedirs(f"{work}/coordination", mode=0o700)
    port = free_port()
    began = time.monotonic()
    server, _ = start_service(build, work, port)
    try:
        time.sleep(1)
        empty_rss = rss_kib(server.pid)
        log(f"filling the store with {count:,} documents")
        instants, ids = fill(port, count)
        log("filled")
        fill_seconds = instants[-1] - instants[0]
        first, last = tenth_rate(instants, "first"), tenth_rate(instants, "last")
        time.sleep(2)  # the last uploads' events settle
        full_rss = rss_kib(server.pid)
        # Some dirty documents for the state filter: an unsaved title.
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        dirty_ids = set(ids[:: max(2, len(ids) // 200)])
        for document in dirty_ids:
            status, headers, _ = request(connection, "GET", f"/documents/{document}")
            status, _, body = request(
                connection, "PATCH", f"/documents/{document}/metadata", json.dumps({"title": "dirty"}).encode(),
                {"Content-Type": "application/json", "If-Match": headers["ETag"]})
            if status != 200:
                raise SystemExit(f"PATCH: {status} {body[:200]!r}")
        connection.close()
        log("listing")
        pages = page_latencies(port, "limit=100", 300)
        dirty = page_latencies(port, "state=dirty&limit=100", 300)
        log("external changes to SSE")
        sse = sse_latency(port, [document for document in ids if document not in dirty_ids], 30)
        log("idle, stop, restart")
        time.sleep(3)
        cpu_before = cpu_seconds(server.pid)
        time.sleep(5)
        idle_cpu = cpu_seconds(server.pid) - cpu_before
        idle_rss = rss_kib(server.pid)
        stop = stop_service(server)
        server, health = start_service(build, work, port)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        started = time.monotonic()
        status, _, _ = request(connection, "GET", "/documents?limit=100")
        first_page = time.monotonic() - started + health
        connection.close()
        restarted_rss = rss_kib(server.pid)
    finally:
        stop_service(server)
        shutil.rmtree(work, ignore_errors=True)
    growth = (full_rss - empty_rss) * 1024 / count
    rows = [
        ("documents", f"{count:,}", ""),
        ("fill (8 clients)", f"{fill_seconds:.0f} s", f"{count / fill_seconds:.0f} uploads/s on average"),
        ("uploads/s, first tenth", f"{first:.0f}", ""),
        ("uploads/s, last tenth", f"{last:.0f}", f"{last / first:.2f}x the first tenth (target >= 0.7x, >= 500/s)"),
        ("resident memory, empty", f"{empty_rss / 1024:.0f} MB", ""),
        ("resident memory, full", f"{full_rss / 1024:.0f} MB", f"{growth:.0f} bytes per document (target <= 1 KiB)"),
        ("resident memory, idle after the run", f"{idle_rss / 1024:.0f} MB", ""),
        ("resident memory, restarted", f"{restarted_rss / 1024:.0f} MB", ""),
        ("GET /documents?limit=100", f"p50 {statistics.median(pages):.1f} ms", f"p99 {percentile(pages, 0.99):.1f} ms (target <= 10 ms)"),
        ("GET /documents?state=dirty&limit=100", f"p50 {statistics.median(dirty):.1f} ms", f"p99 {percentile(dirty, 0.99):.1f} ms (target <= 10 ms)"),
        ("external change -> SSE event", f"median {sse:.1f} ms", "target <= 30 ms"),
        ("idle CPU over 5 s", f"{idle_cpu * 1000:.0f} ms", ""),
        ("graceful stop", f"{stop:.2f} s" if stop is not None else "killed after 60 s", "target <= 2 s"),
        ("restart -> /health", f"{health:.2f} s", "target <= 2 s"),
        ("restart -> first page", f"{first_page:.2f} s", "target <= 1 s after /health"),
        ("whole run", f"{time.monotonic() - began:.0f} s", ""),
    ]
    width = max(len(row[0]) for row in rows)
    print(f"bench-scale: one node, release build, {os.cpu_count()} cores")
    for name, value, note in rows:
        print(f"  {name:<{width}}  {value:<16} {note}")


if __name__ == "__main__":
    main()
