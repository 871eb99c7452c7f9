"""What document versions cost: one node of each of two builds side by side, in one run.

usage: version-cost.py BEFORE_BUILD AFTER_BUILD [ROUNDS]
Each BUILD is a directory with release `quire-store` and `quire-pdf` (`scripts/release-build.sh` output, or
`swift build -c release`). Starts one single node of each on a private store, uploads the same one-page PDF, then
measures, in ROUNDS interleaved blocks (default 6) and reports the medians and AFTER / BEFORE:
  - GET /documents/{id} (the info) on one keep-alive connection, 500 requests a block: requests per second;
  - a conditional PATCH …/metadata with the validator the previous answer gave (If-Match), 100 a block: the median
    latency of one edit.
Issue 27's target: both within 1.05x of the build before versions.
"""
import http.client, json, os, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_service import info_rate, repo, running_service  # noqa: E402

before, after = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
fixture = open(f"{repo}/Fixtures/one-page.pdf", "rb").read()


def upload(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/documents", body=fixture, headers={"Content-Type": "application/pdf"})
    response = connection.getresponse()
    body = response.read()
    assert response.status == 201, (response.status, body)
    return json.loads(body)["id"], response.getheader("ETag")


def patch_latency(port, document, etag, count=100):
    """Conditional edits, each naming the validator the answer before gave; the median ms and the last validator."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    delays = []
    for index in range(count):
        start = time.monotonic()
        connection.request("PATCH", f"/documents/{document}/metadata", body=json.dumps({"title": f"t{index}"}),
                           headers={"Content-Type": "application/merge-patch+json", "If-Match": etag})
        response = connection.getresponse()
        response.read()
        delays.append((time.monotonic() - start) * 1000)
        assert response.status == 200, response.status
        etag = response.getheader("ETag")
    connection.close()
    return statistics.median(delays), etag


with running_service(before, "quire-version-cost-before-") as (before_port, _), \
        running_service(after, "quire-version-cost-after-") as (after_port, _):
    documents = {"before": upload(before_port), "after": upload(after_port)}
    ports = {"before": before_port, "after": after_port}
    rates = {"before": [], "after": []}
    edits = {"before": [], "after": []}
    for _ in range(rounds):
        for name in ("before", "after"):
            rates[name].append(info_rate(ports[name], documents[name][0], 500))
    tags = {name: documents[name][1] for name in ports}
    for _ in range(rounds):
        for name in ("before", "after"):
            delay, tags[name] = patch_latency(ports[name], documents[name][0], tags[name])
            edits[name].append(delay)
    info_before, info_after = statistics.median(rates["before"]), statistics.median(rates["after"])
    edit_before, edit_after = statistics.median(edits["before"]), statistics.median(edits["after"])
    print(f"GET info: before {info_before:.0f}/s, after {info_after:.0f}/s: after takes "
          f"{info_before / info_after:.3f}x the time (target <= 1.05x)")
    print(f"conditional PATCH: before {edit_before:.2f} ms, after {edit_after:.2f} ms: "
          f"{edit_after / edit_before:.3f}x (target <= 1.05x)")
