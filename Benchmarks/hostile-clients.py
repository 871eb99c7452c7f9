#!/usr/bin/env python3
"""The service against many hostile clients at once (release `quire serve`, one run):
  1. resident memory (VmHWM) of the service while 20 clients upload 2 GiB each, chunked (no length given),
     then 20 that declare a 2 GiB Content-Length: the bodies are generated on the fly, never written to disk.
     Target (issue 13): <= 300 MB.
  2. /health latency (p50/p99 of 100) with 2,000 idle connections held open, against no connections held.

    Benchmarks/hostile-clients.py [BUILD_DIR]      # default: .build/release of the repository
"""
import http.client, os, socket, statistics, sys, threading, time

from quire_service import repo, running_service

build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, ".build", "release")
GIB = 1 << 30


def vm(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024  # MiB
    return 0


def upload(port, chunked, results):
    piece = b"%PDF-1.4\n" + b"0" * (1 << 20)
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(120)
    try:
        head = "POST /documents HTTP/1.1\r\nHost: x\r\nContent-Type: application/pdf\r\n"
        head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {2 * GIB}\r\n\r\n"
        sock.sendall(head.encode())
        sent = 0
        while sent < 2 * GIB:
            data = (b"%x\r\n" % len(piece)) + piece + b"\r\n" if chunked else piece
            sock.sendall(data)
            sent += len(piece)
    except OSError:
        pass
    try:
        answer = sock.recv(200).decode(errors="replace").split("\r\n")[0]
    except OSError as error:
        answer = f"({error})"
    results.append(answer)
    sock.close()


def health(port, count=100):
    latencies = []
    for _ in range(count):
        started = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/health")
        connection.getresponse().read()
        connection.close()
        latencies.append((time.perf_counter() - started) * 1000)
    ordered = sorted(latencies)
    return statistics.median(latencies), ordered[int(0.99 * (len(ordered) - 1))]


def main():
    with running_service(build, "quire-hostile-") as (port, pid):
        health(port, 20)
        before = vm(pid, "VmHWM")
        for chunked in (True, False):
            results = []
            threads = [threading.Thread(target=upload, args=(port, chunked, results)) for _ in range(20)]
            started = time.time()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=300)
            kind = "chunked" if chunked else "Content-Length 2 GiB"
            print(f"20 concurrent 2 GiB uploads ({kind}): answers {sorted(set(results))}, {time.time() - started:.1f} s,"
                  f" VmHWM {vm(pid, 'VmHWM')} MiB (before: {before} MiB)   target <= 300 MB")
        idle_p50, idle_p99 = health(port)
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(2000)]
        loaded_p50, loaded_p99 = health(port)
        print(f"/health, ms (p50 / p99): no connections held {idle_p50:.2f} / {idle_p99:.2f}; "
              f"2,000 idle connections held {loaded_p50:.2f} / {loaded_p99:.2f}")
        for connection in held:
            connection.close()


if __name__ == "__main__":
    main()
