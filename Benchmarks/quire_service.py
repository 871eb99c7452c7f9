"""A release `quire serve` on a free loopback port in a private directory, for the Python benchmarks."""
import contextlib, http.client, os, shutil, signal, socket, subprocess, tempfile, time

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_service(build, prefix):
    """Starts `BUILD/quire-store serve` (its PDF workers are the quire-pdf next to it) with a store and a root in
    a new directory; yields (port, pid) once it accepts connections; stops it and removes the directory after."""
    work = tempfile.mkdtemp(prefix=prefix)
    for name in ("store", "root"):
        os.makedirs(f"{work}/{name}")
    os.makedirs(f"{work}/coordination", mode=0o700)
    port = free_port()
    environment = dict(os.environ, QUIRE_COORDINATION_DIR=f"{work}/coordination", QUIRE_LOG_LEVEL="error")
    server = subprocess.Popen(
        [f"{build}/quire-store", "serve", "--port", str(port), "--store", f"{work}/store", "--root", f"{work}/root"],
        env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port)).close()
                break
            except OSError:
                time.sleep(0.05)
        yield port, server.pid
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


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
