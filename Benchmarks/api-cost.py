"""What writing the JSON answers with the generated types costs: one node of each of two builds side by side, in one
run (issue 33: the hand-written bodies, events and problems against openapi.yaml's generated types).

usage: api-cost.py BEFORE_BUILD AFTER_BUILD [ROUNDS]
Each BUILD is a directory with release `quire-store` and `quire-pdf` (`scripts/release-build.sh` output). Starts one
single node of each on a private store, uploads the same 100 one-page PDFs to each, then measures in ROUNDS
interleaved blocks (default 6), on one keep-alive connection, and reports the medians and AFTER / BEFORE:
  - GET /documents/{id} (the info, encoded once per version), 500 a block: requests per second;
  - GET /documents?limit=100 (100 summaries encoded per answer), 100 a block: requests per second;
  - a conditional PATCH …/metadata (a new version: its info encoded), 100 a block: median latency;
  - a conditional PUT …/content (a coordinated write, then the info), 30 a block: median latency;
  - GET /events with Last-Event-ID: 0 (the whole event log replayed, each event written as the spec's Event) until
    the `: connected` comment, reconnecting from where a `resume` says, once a block: events per second;
  - GET /documents?limit=abc (a 400 problem with its `parameter` member), 500 a block: requests per second.
Target: no regression (each within the noise of the machine, about 1.05x).
"""
import http.client, json, os, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_service import info_rate, repo, side_by_side  # noqa: E402

before, after = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
fixture = open(f"{repo}/Fixtures/one-page.pdf", "rb").read()
other = open(f"{repo}/Fixtures/page-labels.pdf", "rb").read()


def timed(connection, method, path, body=None, headers=None, expected=200):
    start = time.monotonic()
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    response.read()
    assert response.status == expected, (method, path, response.status)
    return (time.monotonic() - start) * 1000, response.getheader("ETag")


def list_rate(port, count=100):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.monotonic()
    for _ in range(count):
        timed(connection, "GET", "/documents?limit=100")
    connection.close()
    return count / (time.monotonic() - start)


def patch_latency(port, document, etag, count=100):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    delays = []
    for index in range(count):
        delay, etag = timed(connection, "PATCH", f"/documents/{document}/metadata",
                            body=json.dumps({"title": f"t{index}"}),
                            headers={"Content-Type": "application/merge-patch+json", "If-Match": etag})
        delays.append(delay)
    connection.close()
    return statistics.median(delays), etag


def put_latency(port, document, etag, count=30):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    delays = []
    for index in range(count):
        delay, etag = timed(connection, "PUT", f"/documents/{document}/content", body=(other, fixture)[index % 2],
                            headers={"Content-Type": "application/pdf", "If-Match": etag})
        delays.append(delay)
    connection.close()
    return statistics.median(delays), etag


def replay_rate(port):
    """Events per second of a replay of the whole log. A reader slower than the replay is cut off as one that fell
    behind (`event: resume` with the id to go on from): it reconnects from there, as a client does."""
    events, last_id, start = 0, 0, time.monotonic()
    while True:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/events", headers={"Last-Event-ID": str(last_id)})
        response = connection.getresponse()
        assert response.status == 200, response.status
        tail, resumed = b"", None
        while True:
            piece = response.fp.read1(1 << 16)
            assert piece, "the stream ended before `: connected` or `event: resume`"
            window = tail + piece
            events += piece.count(b"\ndata: ") + (tail.endswith(b"\n") and piece.startswith(b"data: "))
            if b"\n: connected" in window:
                break
            if b"event: resume" in window:
                while b"}" not in window[window.index(b"event: resume"):]:
                    window += response.fp.read1(1 << 16)
                line = window[window.index(b"event: resume"):].split(b"data: ", 1)[1].split(b"\n", 1)[0]
                resumed = json.loads(line)["lastEventId"]
                events -= 1  # the resume event itself
                break
            tail = window[-64:]
        connection.close()
        if resumed is None:
            return events / (time.monotonic() - start)
        last_id = resumed


def problem_rate(port, count=500):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.monotonic()
    for _ in range(count):
        timed(connection, "GET", "/documents?limit=abc", expected=400)
    connection.close()
    return count / (time.monotonic() - start)


with side_by_side(before, after, "quire-api-cost-", fixture) as (ports, documents):
    results = {measure: {"before": [], "after": []} for measure in ("info", "list", "patch", "put", "replay", "problem")}
    edited = {name: documents[name][0] for name in ports}
    written = {name: documents[name][1] for name in ports}
    for _ in range(rounds):
        for name, port in ports.items():
            results["info"][name].append(info_rate(port, documents[name][2][0], 500))
            results["list"][name].append(list_rate(port))
            delay, tag = patch_latency(port, edited[name][0], edited[name][1])
            edited[name] = (edited[name][0], tag)
            results["patch"][name].append(delay)
            delay, tag = put_latency(port, written[name][0], written[name][1])
            written[name] = (written[name][0], tag)
            results["put"][name].append(delay)
            results["replay"][name].append(replay_rate(port))
            results["problem"][name].append(problem_rate(port))
    median = {measure: {name: statistics.median(values) for name, values in runs.items()}
              for measure, runs in results.items()}
    for measure, label in (("info", "GET info"), ("list", "GET /documents?limit=100"),
                           ("replay", "event log replayed (events)"), ("problem", "400 problem")):
        b, a = median[measure]["before"], median[measure]["after"]
        print(f"{label}: before {b:.0f}/s, after {a:.0f}/s: after takes {b / a:.3f}x the time")
    for measure, label in (("patch", "conditional PATCH"), ("put", "conditional PUT")):
        b, a = median[measure]["before"], median[measure]["after"]
        print(f"{label}: before {b:.2f} ms, after {a:.2f} ms: {a / b:.3f}x")
