"""What the polling windows buy and cost: four release nodes side by side in one run, one with the default windows,
one with every window 0 (sleep at once), one with only the coordination windows 0 and one with only the workers'.

usage: polling-cost.py BUILD [ROUNDS] [--loaded]
BUILD is a directory with release `quire-store` and `quire-pdf` (`scripts/release-build.sh --show-bin-path`).
For each setting, in ROUNDS interleaved blocks (default 5), on one keep-alive connection:
  - GET /documents/{id}/pages/1/text, 300 a block (a PDF worker's round trip: workers.* windows);
  - PUT /documents/{id}/content with If-Match, 60 a block (a coordinated write and a worker's probe: coordination.*
    and workers.* windows);
and prints the median latency and the CPU time the service and its PDF workers spent per request (from
/proc/PID/stat), then the CPU both spent over 10 s of idleness after the load (target: about 0).
With --loaded, one busy-looping process per core runs beside the service at normal priority during the blocks.
"""
import http.client, json, multiprocessing, os, statistics, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_service import log, repo, running_service  # noqa: E402

arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
build = arguments[0]
rounds = int(arguments[1]) if len(arguments) > 1 else 5
loaded = "--loaded" in sys.argv
fixture = open(f"{repo}/Fixtures/one-page.pdf", "rb").read()
ticks = os.sysconf("SC_CLK_TCK")
WINDOWS = ["QUIRE_COORDINATION_POLL_MICROSECONDS", "QUIRE_COORDINATION_HAND_OVER_POLL_MICROSECONDS",
           "QUIRE_COORDINATION_HOST_POLL_MICROSECONDS", "QUIRE_WORKERS_POLL_MICROSECONDS",
           "QUIRE_WORKERS_IDLE_POLL_MICROSECONDS"]


def cpu_seconds(pid):
    """utime + stime of `pid` and of its living children (the PDF workers), in seconds."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == pid or int(fields[1]) == pid:  # fields[1] is the parent's pid
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def request(connection, method, path, body=None, headers=None):
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    return response, data


def spin():
    while True:
        pass


def block(port, pid, document, etag):
    """One block of text reads and PUTs: their median latencies (ms) and CPU per request (ms)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    delays, before = [], cpu_seconds(pid)
    for _ in range(300):
        start = time.perf_counter()
        response, _ = request(connection, "GET", f"/documents/{document}/pages/1/text")
        assert response.status == 200, response.status
        delays.append(time.perf_counter() - start)
    text = (statistics.median(delays) * 1e3, (cpu_seconds(pid) - before) / 300 * 1e3)
    delays, before = [], cpu_seconds(pid)
    for _ in range(60):
        start = time.perf_counter()
        response, _ = request(connection, "PUT", f"/documents/{document}/content", body=fixture,
                              headers={"Content-Type": "application/pdf", "If-Match": etag})
        assert response.status == 200, (response.status, response.read())
        etag = response.getheader("ETag")
        delays.append(time.perf_counter() - start)
    put = (statistics.median(delays) * 1e3, (cpu_seconds(pid) - before) / 60 * 1e3)
    connection.close()
    return text, put, etag


def main():
    settings = {"default windows": {}, "every window 0": {name: "0" for name in WINDOWS},
                "coordination 0": {name: "0" for name in WINDOWS if "COORDINATION" in name},
                "workers 0": {name: "0" for name in WINDOWS if "WORKERS" in name}}
    results = {name: {"text": [], "put": [], "idle": None} for name in settings}
    services, nodes = [], {}
    saved = dict(os.environ)
    try:
        for index, (name, variables) in enumerate(settings.items()):
            os.environ.update(variables)
            try:
                service = running_service(build, f"quire-poll-{index}-")
                nodes[name] = service.__enter__()
                services.append(service)
            finally:
                os.environ.clear()
                os.environ.update(saved)
        documents = {}
        for name, (port, _) in nodes.items():
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            response, body = request(connection, "POST", "/documents", fixture,
                                     {"Content-Type": "application/pdf"})
            assert response.status == 201, (response.status, body)
            documents[name] = [json.loads(body)["id"], response.getheader("ETag")]
            connection.close()
        hogs = []
        if loaded:
            hogs = [multiprocessing.Process(target=spin, daemon=True) for _ in range(os.cpu_count())]
            for hog in hogs:
                hog.start()
        try:
            for index in range(rounds):
                for name in (list(settings) if index % 2 == 0 else reversed(list(settings))):
                    port, pid = nodes[name]
                    text, put, etag = block(port, pid, *documents[name])
                    documents[name][1] = etag
                    results[name]["text"].append(text)
                    results[name]["put"].append(put)
        finally:
            for hog in hogs:
                hog.kill()
        # Idleness: nothing in flight; what the service and its workers spend in 10 s.
        before = {name: cpu_seconds(pid) for name, (_, pid) in nodes.items()}
        time.sleep(10)
        for name, (_, pid) in nodes.items():
            results[name]["idle"] = cpu_seconds(pid) - before[name]
    finally:
        for service in services:
            service.__exit__(None, None, None)
    print(f"polling windows, {rounds} blocks each{' (loaded: one busy process per core)' if loaded else ''}")
    print(f"{'setting':<17} {'text ms':>8} {'text CPU ms':>12} {'PUT ms':>8} {'PUT CPU ms':>11} {'idle CPU s/10 s':>16}")
    for name in settings:
        text = results[name]["text"]
        put = results[name]["put"]
        print(f"{name:<17} {statistics.median(t[0] for t in text):>8.3f} {statistics.median(t[1] for t in text):>12.3f} "
              f"{statistics.median(p[0] for p in put):>8.3f} {statistics.median(p[1] for p in put):>11.3f} "
              f"{results[name]['idle']:>16.2f}")
    a, b = results["default windows"], results["every window 0"]
    print(f"latency default / none: text {statistics.median(t[0] for t in a['text']) / statistics.median(t[0] for t in b['text']):.2f}x, "
          f"PUT {statistics.median(p[0] for p in a['put']) / statistics.median(p[0] for p in b['put']):.2f}x")


if __name__ == "__main__":
    log(f"polling-cost: {build}")
    main()
