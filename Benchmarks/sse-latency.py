"""Median delay from an external change of a document's file to its SSE event.

usage: sse-latency.py BASE_URL FILE OTHER_PDF ROUNDS
Holds GET /events open; each round replaces FILE by an atomic rename (uncoordinated, as `mv` does) with
alternately OTHER_PDF's and the original bytes, and waits for the next `changed` event. Prints the median in ms.
"""
import os
import socket
import statistics
import sys
import time
import urllib.parse

base, path, other, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
original = open(path, "rb").read()
replacement = open(other, "rb").read()
url = urllib.parse.urlparse(base)
sock = socket.create_connection((url.hostname, url.port))
sock.sendall(f"GET /events HTTP/1.1\r\nHost: {url.hostname}\r\nAccept: text/event-stream\r\n\r\n".encode())
stream = sock.makefile("rb")


def next_event():
    """Reads lines until a complete event with type `changed` (chunk-size lines and comments are skipped)."""
    kind = None
    while True:
        line = stream.readline()
        if not line:
            raise SystemExit("the event stream ended")
        line = line.rstrip(b"\r\n")
        if line.startswith(b"event: "):
            kind = line[7:].decode()
        elif line == b"" and kind is not None:
            if kind == "changed":
                return
            kind = None


# Wait until the stream is open (the "connected" comment).
while b"connected" not in stream.readline():
    pass
delays = []
staging = path + ".staging"
for index in range(rounds):
    with open(staging, "wb") as handle:
        handle.write(replacement if index % 2 == 0 else original)
    start = time.monotonic()
    os.rename(staging, path)
    next_event()
    delays.append((time.monotonic() - start) * 1000)
print(f"{statistics.median(delays):.2f}")
