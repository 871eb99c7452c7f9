"""Median delay from an external change of a document's file to its SSE event.

usage: sse-latency.py BASE_URL FILE OTHER_PDF ROUNDS
Holds GET /events open; each round replaces FILE by an atomic rename (uncoordinated, as `mv` does) with
alternately OTHER_PDF's and the original bytes, and waits for the next `changed` event. Prints the median in ms.
"""
import os
import statistics
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_service import event_stream, next_event  # noqa: E402

base, path, other, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
original = open(path, "rb").read()
replacement = open(other, "rb").read()
url = urllib.parse.urlparse(base)
stream = event_stream(url.port, url.hostname)
delays = []
staging = path + ".staging"
for index in range(rounds):
    with open(staging, "wb") as handle:
        handle.write(replacement if index % 2 == 0 else original)
    start = time.monotonic()
    os.rename(staging, path)
    next_event(stream, "changed")
    delays.append((time.monotonic() - start) * 1000)
print(f"{statistics.median(delays):.2f}")
