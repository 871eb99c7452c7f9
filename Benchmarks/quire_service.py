"""A release `quire serve` on a free loopback port in a private directory, for the Python benchmarks."""
import contextlib, http.client, json, os, shutil, signal, socket, subprocess, tempfile, time

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_service(build, work, port):
    """Starts `BUILD/quire-store serve` over `WORK/store` with the root `WORK/root` (its PDF workers are the
    quire-pdf next to it); returns the process and the seconds until `/health` answered 200 (at most 60)."""
    environment = dict(os.environ, QUIRE_COORDINATION_DIR=f"{work}/coordination", QUIRE_LOG_LEVEL="error")
    started = time.monotonic()
    server = subprocess.Popen(
        [f"{build}/quire-store", "serve", "--port", str(port), "--store", f"{work}/store", "--root", f"{work}/root"],
        env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/health")
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status == 200:
                return server, time.monotonic() - started
        except OSError:
            pass
        if time.monotonic() - started > 60:
            server.kill()
            raise SystemExit("the service did not answer /health within 60 s")
        time.sleep(0.01)


def stop_service(server):
    """SIGTERM, then SIGKILL after 60 s; returns the seconds a graceful stop took, None when it had to be killed."""
    started = time.monotonic()
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        return None
    return time.monotonic() - started


@contextlib.contextmanager
def running_service(build, prefix):
    """Starts `BUILD/quire-store serve` with a store and a root in a new directory; yields (port, pid) once it
    answers /health; stops it and removes the directory after."""
    work = tempfile.mkdtemp(prefix=prefix)
    for name in ("store", "root"):
        os.makedirs(f"{work}/{name}")
    os.makedirs(f"{work}/coordination", mode=0o700)
    port = free_port()
    server, _ = start_service(build, work, port)
    try:
        yield port, server.pid
    finally:
        stop_service(server)
        shutil.rmtree(work, ignore_errors=True)


def event_stream(port, host="127.0.0.1"):
    """GET /events on a connection of its own, once its `connected` comment arrived: the response, whose lines
    are the stream's (http.client undoes the chunked transfer coding)."""
    connection = http.client.HTTPConnection(host, port, timeout=30)
    connection.request("GET", "/events", headers={"Accept": "text/event-stream"})
    stream = connection.getresponse()
    while b"connected" not in stream.readline():
        pass
    return stream


def next_event(stream, wanted, containing=None):
    """Reads the stream's lines until an event of type `wanted` whose data holds `containing` (any, when None)."""
    kind = None
    while True:
        line = stream.readline()
        if not line:
            raise SystemExit("the event stream ended")
        line = line.rstrip(b"\r\n")
        if line.startswith(b"event: "):
            kind = line[7:].decode()
        elif line.startswith(b"data: ") and kind == wanted and (containing is None or containing.encode() in line):
            return
        elif line == b"":
            kind = None


def upload_pdf(connection, body):
    """POST /documents with `body` (a PDF) on `connection`; the new document's id and ETag."""
    connection.request("POST", "/documents", body=body, headers={"Content-Type": "application/pdf"})
    response = connection.getresponse()
    answer = response.read()
    assert response.status == 201, (response.status, answer)
    return json.loads(answer)["id"], response.getheader("ETag")


@contextlib.contextmanager
def side_by_side(before, after, prefix, body, count=100):
    """One node of each build (`before`, `after`), each given the same `count` uploads of `body`; yields the ports
    and the uploaded documents' (id, ETag) pairs, both by "before" and "after"."""
    with running_service(before, f"{prefix}before-") as (before_port, _), \
            running_service(after, f"{prefix}after-") as (after_port, _):
        ports = {"before": before_port, "after": after_port}
        documents = {}
        for name, port in ports.items():
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            documents[name] = [upload_pdf(connection, body) for _ in range(count)]
            connection.close()
        yield ports, documents


def info_rate(port, document, count, suffix=""):
    """GET /documents/DOCUMENT[SUFFIX] `count` times on one keep-alive connection; requests per second."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    start = time.monotonic()
    for _ in range(count):
        connection.request("GET", f"/documents/{document}{suffix}")
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status
    connection.close()
    return count / (time.monotonic() - start)


@contextlib.contextmanager
def postgres(work):
    """A private PostgreSQL (Debian's, as the `postgres` user when run as root) in `WORK/pg` on a free port;
    yields its URL (`postgres://quire@127.0.0.1:PORT/quire`) and stops it after."""
    binaries = sorted(d for d in os.listdir("/usr/lib/postgresql") if d.isdigit())[-1]
    binaries = f"/usr/lib/postgresql/{binaries}/bin"
    prefix = ["/usr/sbin/runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    os.makedirs(f"{work}/pg", mode=0o700)
    if os.getuid() == 0:
        shutil.chown(f"{work}/pg", "postgres")
    subprocess.run(prefix + [f"{binaries}/initdb", "-D", f"{work}/pg/data", "-U", "quire", "-A", "trust",
                             "--no-sync", "-E", "UTF8", "--locale=C"], check=True, stdout=subprocess.DEVNULL)
    port = free_port()
    subprocess.run(prefix + [f"{binaries}/pg_ctl", "-D", f"{work}/pg/data", "-l", f"{work}/pg/log", "-w", "-o",
                             f"-p {port} -k {work}/pg -c listen_addresses=127.0.0.1", "start"],
                   check=True, stdout=subprocess.DEVNULL)
    try:
        subprocess.run([f"{binaries}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "quire", "quire"], check=True)
        yield f"postgres://quire@127.0.0.1:{port}/quire"
    finally:
        subprocess.run(prefix + [f"{binaries}/pg_ctl", "-D", f"{work}/pg/data", "-m", "immediate", "stop"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def log(message):
    """Progress on standard error (a benchmark's table goes to standard output)."""
    import sys
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def one_page_pdf(text, font_size=24):
    """A valid one-page PDF showing `text` in Helvetica (distinct texts give distinct bytes)."""
    stream = f"BT /F1 {font_size} Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for index, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{index} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
