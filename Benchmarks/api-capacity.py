"""Capacity of two builds side by side under wrk: a document's info and a listing of 100 documents.

usage: api-capacity.py BEFORE_BUILD AFTER_BUILD [ROUNDS]
Each BUILD is a directory with release `quire-store` and `quire-pdf` (`scripts/release-build.sh` output). Starts one
single node of each, uploads the same 100 one-page PDFs to each, then runs `wrk -t2 -c16 -d4s` against
GET /documents/{id} and GET /documents?limit=100 of each, alternating, ROUNDS times (default 3); prints the requests
per second of every round and AFTER / BEFORE time of the medians. Where api-cost.py's one Python client spends most
of a request's time itself, this measures what the service can answer.
"""
import os, re, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_service import repo, side_by_side  # noqa: E402

before, after = sys.argv[1], sys.argv[2]
rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
fixture = open(f"{repo}/Fixtures/one-page.pdf", "rb").read()

with side_by_side(before, after, "quire-api-capacity-", fixture) as (ports, uploaded):
    documents = {name: uploaded[name][-1][0] for name in ports}
    results = {name: {"info": [], "list": []} for name in ports}
    for _ in range(rounds):
        for name, port in ports.items():
            for kind, path in (("info", f"/documents/{documents[name]}"), ("list", "/documents?limit=100")):
                output = subprocess.run(
                    ["wrk", "-t2", "-c16", "-d4s", f"http://127.0.0.1:{port}{path}"],
                    capture_output=True, text=True, check=True).stdout
                results[name][kind].append(float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)))
    for kind, label in (("info", "GET info"), ("list", "GET /documents?limit=100")):
        b, a = statistics.median(results["before"][kind]), statistics.median(results["after"][kind])
        print(f"{label}: before {results['before'][kind]}, after {results['after'][kind]} requests/s: "
              f"after takes {b / a:.3f}x the time")
