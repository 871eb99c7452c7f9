#!/usr/bin/env bash
# The service against a client no one here wrote: schemathesis (from PyPI) generates requests from openapi.yaml for
# every operation and checks every answer — no server error (5xx), status codes, content types, headers and bodies
# as the document says. Run by .ci/run after `make test` (and by `make contract`), against a real `quire serve`
# (debug build) on a free loopback port with a private store, root and coordination directory.
#
# Environment: SCHEMATHESIS_EXAMPLES (per operation, default 10), SCHEMATHESIS_SEED (default 1: the same cases
# every run; set another to explore).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
say() { printf '==> %s\n' "$*" >&2; }

if ! python3 -c 'import schemathesis' 2>/dev/null; then
    say "installing schemathesis from PyPI"
    python3 -m pip install --quiet --disable-pip-version-check 'schemathesis>=4,<5' 2>/dev/null \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages 'schemathesis>=4,<5'
fi

swift build >/dev/null
work="$(mktemp -d)"
chmod 700 "$work"
mkdir -p "$work/root" "$work/store"
cp Fixtures/one-page.pdf Fixtures/mixed-sizes.pdf "$work/root/"
export QUIRE_COORDINATION_DIR="$work/coordination" QUIRE_COORDINATION_QUIET=1 QUIRE_LOG_LEVEL=warning
.build/debug/quire serve --port 0 --store "$work/store" --root "$work/root" >"$work/serve.out" 2>"$work/serve.log" &
server=$!
cleanup() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

url=""
for _ in $(seq 1 300); do
    url="$(sed -n 's/^quire serve: listening on //p' "$work/serve.out")"
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$work/serve.log" >&2; echo "quire serve did not start" >&2; exit 1; }
    sleep 0.1
done
[ -n "$url" ] || { echo "quire serve did not listen within 30 s" >&2; exit 1; }
say "quire serve at $url"

# Documents to work on: one upload and one registered file.
python3 - "$url" "$work/root" <<'PY'
import json, sys, urllib.request
url, root = sys.argv[1], sys.argv[2]
def post(body, content_type):
    request = urllib.request.Request(url + "/documents", data=body, headers={"Content-Type": content_type})
    with urllib.request.urlopen(request) as response:
        assert response.status == 201, response.status
post(open(root + "/one-page.pdf", "rb").read(), "application/pdf")
post(json.dumps({"files": [root + "/mixed-sizes.pdf"]}).encode(), "application/json")
PY

SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$repo/Tests/contract" python3 -m schemathesis.cli run openapi.yaml --url "$url" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
    --max-examples "${SCHEMATHESIS_EXAMPLES:-10}" --seed "${SCHEMATHESIS_SEED:-1}" --workers 1 --no-color
