"""Cluster mode against one node, side by side in one run (release builds of quire-store and quire-pdf).

usage: cluster-latency.py BUILD_DIR [ROUNDS]
Starts a private PostgreSQL (Debian's, as the `postgres` user when run as root), three `quire-store serve
--database` nodes sharing one store and root (each with its own coordination directory), and one single node.
Prints, each as a median over ROUNDS (default 40):
  - upload through node 1 → its `created` event on node 3's /events, against upload → event on the single node;
  - an external change (atomic rename over a registered file) → the `changed` event on node 3, against the same on
    the single node;
  - GET /documents/{id} (info) and GET …/content on node 2, against the single node: requests per second on one
    keep-alive connection, interleaved blocks, and their ratios;
  - PATCH …/metadata of a document node 1 owns, through node 2 (forwarded to node 1) against through node 1;
  - PUT …/content (a 4-page PDF and a 1-page one in turn, with the current validator) of a document node 1 owns,
    through node 2 (the body streamed through to node 1) against through node 1 (target: within 1.2x);
  - the takeover: node 1 killed with SIGKILL, the time until an edit of its document through node 2 is answered.
"""
import contextlib, http.client, json, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_service import free_port, info_rate, postgres, repo  # noqa: E402

build = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 40
fixture = open(f"{repo}/Fixtures/one-page.pdf", "rb").read()
other = open(f"{repo}/Fixtures/mixed-sizes.pdf", "rb").read()


def wait_for_port(port, process):
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except OSError:
            if process.poll() is not None:
                raise SystemExit(f"a node on port {port} exited")
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on port {port}")


@contextlib.contextmanager
def nodes(work, store, root, database, count):
    processes = []
    try:
        ports = []
        for index in range(count):
            coordination = f"{work}/coordination-{index}-{count}"
            os.makedirs(coordination, mode=0o700)
            port = free_port()
            arguments = [f"{build}/quire-store", "serve", "--port", str(port), "--store", store, "--root", root]
            if database:
                arguments += ["--database", database]
            environment = dict(os.environ, QUIRE_COORDINATION_DIR=coordination, QUIRE_LOG_LEVEL="error",
                               QUIRE_PDF_WORKER=f"{build}/quire-pdf")
            processes.append(subprocess.Popen(arguments, env=environment, stdout=subprocess.DEVNULL))
            wait_for_port(port, processes[-1])
            ports.append(port)
        nodes.processes = processes
        yield ports
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()


class Feed:
    """GET /events on a raw socket: each next(type) reads until an event of that type and returns its data."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        self.stream = self.sock.makefile("rb")
        while b"connected" not in self.stream.readline():
            pass

    def next(self, wanted):
        kind = data = None
        while True:
            line = self.stream.readline()
            if not line:
                raise SystemExit("the event stream ended")
            line = line.rstrip(b"\r\n")
            if line.startswith(b"event: "):
                kind = line[7:].decode()
            elif line.startswith(b"data: "):
                data = json.loads(line[6:])
            elif line == b"" and kind is not None:
                if kind == wanted:
                    return data
                kind = data = None


def request(port, method, path, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    payload = response.read()
    connection.close()
    return response.status, payload


def upload_to_event(write_port, feed):
    delays = []
    for _ in range(rounds):
        start = time.monotonic()
        status, _ = request(write_port, "POST", "/documents", fixture, {"Content-Type": "application/pdf"})
        assert status == 201, status
        feed.next("created")
        delays.append((time.monotonic() - start) * 1000)
    return statistics.median(delays)


def change_to_event(path, feed):
    delays = []
    original = open(path, "rb").read()
    for index in range(rounds):
        staging = path + ".staging"
        with open(staging, "wb") as handle:
            handle.write(other if index % 2 == 0 else original)
        start = time.monotonic()
        os.rename(staging, path)
        feed.next("changed")
        delays.append((time.monotonic() - start) * 1000)
    return statistics.median(delays)


def edit(port, document, index):
    return request(port, "PATCH", f"/documents/{document}/metadata", json.dumps({"title": f"t{index}"}).encode(),
                   {"Content-Type": "application/merge-patch+json"})[0]


def edit_latency(port, document):
    delays = []
    for index in range(rounds):
        start = time.monotonic()
        assert edit(port, document, index) == 200
        delays.append((time.monotonic() - start) * 1000)
    return statistics.median(delays)


def put_latency(port, document):
    """PUTs through `port`, each naming the validator the answer before gave; the median ms of the PUT alone."""
    status, body = request(port, "GET", f"/documents/{document}")
    assert status == 200, status
    etag = json.loads(body)["etag"]
    delays = []
    for index in range(rounds):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        start = time.monotonic()
        connection.request("PUT", f"/documents/{document}/content", body=other if index % 2 == 0 else fixture,
                           headers={"Content-Type": "application/pdf", "If-Match": etag})
        response = connection.getresponse()
        response.read()
        delays.append((time.monotonic() - start) * 1000)
        assert response.status == 200, response.status
        etag = response.getheader("ETag")
        connection.close()
    return statistics.median(delays)


work = tempfile.mkdtemp(prefix="quire-cluster-bench-")
os.chmod(work, 0o755)  # PostgreSQL runs as `postgres` and must reach its directory inside
try:
    for name in ("cluster-store", "cluster-root", "single-store", "single-root"):
        os.makedirs(f"{work}/{name}")
    shutil.copy(f"{repo}/Fixtures/one-page.pdf", f"{work}/cluster-root/watched.pdf")
    shutil.copy(f"{repo}/Fixtures/one-page.pdf", f"{work}/single-root/watched.pdf")
    with postgres(work) as database, \
            nodes(work, f"{work}/cluster-store", f"{work}/cluster-root", database, 3) as cluster:
        cluster_processes = nodes.processes
        with nodes(work, f"{work}/single-store", f"{work}/single-root", None, 1) as single:
            registered = {}
            for name, port in (("cluster", cluster[0]), ("single", single[0])):
                status, body = request(port, "POST", "/documents",
                                       json.dumps({"files": [f"{work}/{name}-root/watched.pdf"]}).encode(),
                                       {"Content-Type": "application/json"})
                assert status == 201, (status, body)
                registered[name] = json.loads(body)["id"]
            cluster_feed, single_feed = Feed(cluster[2]), Feed(single[0])
            upload_cluster = upload_to_event(cluster[0], cluster_feed)
            upload_single = upload_to_event(single[0], single_feed)
            change_cluster = change_to_event(f"{work}/cluster-root/watched.pdf", cluster_feed)
            change_single = change_to_event(f"{work}/single-root/watched.pdf", single_feed)
            rates = {"cluster": [], "single": []}
            for _ in range(6):
                rates["cluster"].append(info_rate(cluster[1], registered["cluster"], 500))
                rates["single"].append(info_rate(single[0], registered["single"], 500))
            cluster_rate, single_rate = statistics.median(rates["cluster"]), statistics.median(rates["single"])
            contents = {"cluster": [], "single": []}
            for _ in range(6):
                contents["cluster"].append(info_rate(cluster[1], registered["cluster"], 500, "/content"))
                contents["single"].append(info_rate(single[0], registered["single"], 500, "/content"))
            cluster_content = statistics.median(contents["cluster"])
            single_content = statistics.median(contents["single"])
            owner_edit = edit_latency(cluster[0], registered["cluster"])
            forwarded_edit = edit_latency(cluster[1], registered["cluster"])
            owner_puts, forwarded_puts = [], []
            for _ in range(3):
                owner_puts.append(put_latency(cluster[0], registered["cluster"]))
                forwarded_puts.append(put_latency(cluster[1], registered["cluster"]))
            owner_put, forwarded_put = statistics.median(owner_puts), statistics.median(forwarded_puts)
            cluster_processes[0].kill()
            killed = time.monotonic()
            while edit(cluster[1], registered["cluster"], 0) != 200:
                if time.monotonic() - killed > 30:
                    raise SystemExit("no takeover within 30 s")
                time.sleep(0.05)
            takeover = time.monotonic() - killed
            print(f"upload on node 1 -> created on node 3: {upload_cluster:.1f} ms (one node: {upload_single:.1f} ms)")
            print(f"external change -> changed on node 3: {change_cluster:.1f} ms (one node: {change_single:.1f} ms)")
            print(f"GET info on node 2: {cluster_rate:.0f}/s, one node {single_rate:.0f}/s: "
                  f"{cluster_rate / single_rate:.2f}x")
            print(f"GET content on node 2: {cluster_content:.0f}/s, one node {single_content:.0f}/s: "
                  f"{cluster_content / single_content:.2f}x")
            print(f"PATCH metadata of node 1's document: through node 1 {owner_edit:.1f} ms, "
                  f"through node 2 (forwarded) {forwarded_edit:.1f} ms")
            print(f"PUT content of node 1's document: through node 1 {owner_put:.1f} ms, through node 2 (forwarded) "
                  f"{forwarded_put:.1f} ms: {forwarded_put / owner_put:.2f}x (target <= 1.2x)")
            print(f"node 1 killed -> its document edited through node 2: {takeover:.2f} s")
finally:
    shutil.rmtree(work, ignore_errors=True)
