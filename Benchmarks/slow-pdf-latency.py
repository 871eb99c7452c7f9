#!/usr/bin/env python3
"""Another document's page text while a crafted slow page is rendered four times at once.

Runs a release `quire serve` (its PDF workers are the quire-pdf next to it), uploads the 100-page fixture and
a crafted one-page PDF (a form of 300,000 tiny filled rectangles drawn 50 times: about 12 s to render, the page
of issue 13), then measures GET /documents/{normal}/pages/{n}/text latency:
  1. idle (nothing else running), 200 requests;
  2. while four clients render the slow page in a loop, 200 requests (target, issue 13: p99 <= 50 ms);
  3. while four crafted documents (more than the two workers) each have their page text asked for in a loop on
     a connection of its own, 1,000 requests (target, issue 29: p99 <= 50 ms; the first slow run of each crafted
     document is in the window: each can hold a worker once before it waits behind the others).
Prints p50/p99 of each and the ratios to idle.

    Benchmarks/slow-pdf-latency.py [BUILD_DIR]      # default: .build/release of the repository
"""
import http.client, json, os, statistics, sys, threading, time

from quire_service import repo, running_service

build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, ".build", "release")


def slow_pdf(rectangles=300_000, draws=50):
    form = "0 0 1 1 re f\n" * rectangles
    page = "/F1 Do\n" * draws
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /F1 5 0 R >> >> "
        "/Contents 4 0 R >>",
        f"<< /Length {len(page)} >>\nstream\n{page}endstream",
        f"<< /Type /XObject /Subtype /Form /BBox [0 0 200 200] /Length {len(form)} >>\nstream\n{form}endstream",
    ]
    pdf, offsets = "%PDF-1.4\n", []
    for index, body in enumerate(objects):
        offsets.append(len(pdf))
        pdf += f"{index + 1} 0 obj\n{body}\nendobj\n"
    xref = len(pdf)
    pdf += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n" + "".join(f"{o:010d} 00000 n \n" for o in offsets)
    pdf += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    return pdf.encode()


def request(port, method, path, body=None, headers=None, timeout=60):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def measure(port, document, count=200):
    latencies = []
    for index in range(count):
        started = time.perf_counter()
        status, _ = request(port, "GET", f"/documents/{document}/pages/{index % 100 + 1}/text")
        latencies.append((time.perf_counter() - started) * 1000)
        assert status == 200, status
    return latencies


def main():
    with running_service(build, "quire-slow-pdf-") as (port, _):
        with open(f"{repo}/Fixtures/hundred-pages.pdf", "rb") as f:
            status, body = request(port, "POST", "/documents", f.read(), {"Content-Type": "application/pdf"})
        normal = json.loads(body)["id"]
        status, body = request(port, "POST", "/documents", slow_pdf(), {"Content-Type": "application/pdf"})
        slow = json.loads(body)["id"]
        measure(port, normal, 20)  # warm-up
        idle = measure(port, normal)

        stop = threading.Event()
        outcomes = []

        def render_loop():
            while not stop.is_set():
                try:
                    outcomes.append(request(port, "GET", f"/documents/{slow}/pages/1/image?dpi=72", timeout=120)[0])
                except OSError:
                    pass

        renders = [threading.Thread(target=render_loop, daemon=True) for _ in range(4)]
        for thread in renders:
            thread.start()
        time.sleep(0.5)  # the renders are under way
        loaded = measure(port, normal)
        stop.set()
        for thread in renders:
            thread.join(timeout=30)

        crafted = []
        for _ in range(4):
            status, body = request(port, "POST", "/documents", slow_pdf(), {"Content-Type": "application/pdf"})
            crafted.append(json.loads(body)["id"])
        stop_text = threading.Event()
        text_outcomes = []

        def text_loop(document):
            while not stop_text.is_set():
                try:
                    text_outcomes.append(request(port, "GET", f"/documents/{document}/pages/1/text", timeout=120)[0])
                except OSError:
                    pass

        texts = [threading.Thread(target=text_loop, args=(document,), daemon=True) for document in crafted]
        for thread in texts:
            thread.start()
        time.sleep(0.5)
        many = measure(port, normal, 1000)
        stop_text.set()
        print(f"text of a normal document, 200 requests, ms (p50 / p99):")
        print(f"  idle:                          {statistics.median(idle):7.2f} / {percentile(idle, 0.99):7.2f}")
        print(f"  four renders of the slow page: {statistics.median(loaded):7.2f} / {percentile(loaded, 0.99):7.2f}")
        print(f"  ratio loaded/idle:             {statistics.median(loaded) / statistics.median(idle):7.2f} / "
              f"{percentile(loaded, 0.99) / percentile(idle, 0.99):7.2f}   (target: p99 under load <= 50 ms)")
        print(f"  four crafted documents' text:  {statistics.median(many):7.2f} / {percentile(many, 0.99):7.2f}"
              f"   (1,000 requests; target: p99 <= 50 ms)")
        print(f"  ratio crafted/idle:            {statistics.median(many) / statistics.median(idle):7.2f} / "
              f"{percentile(many, 0.99) / percentile(idle, 0.99):7.2f}   max {max(many):.0f} ms")
    for thread in texts:
        thread.join(timeout=30)
    print(f"  slow renders answered meanwhile: {sorted(set(outcomes))} ({len(outcomes)})")
    print(f"  crafted texts answered meanwhile: {sorted(set(text_outcomes))} ({len(text_outcomes)})")


if __name__ == "__main__":
    main()
