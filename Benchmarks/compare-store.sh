#!/usr/bin/env bash
# The document-store service side by side with its peers, in one run (release build of Benchmarks/StoreServer):
#   1. GET /documents/{id} on an open document (wrk, 2 threads, 32 connections) against a loop that runs
#      `pdfinfo` on the same file (what a naive backend does; its rate is 1 / hyperfine's mean).  Target >= 50x.
#   2. GET /documents/{id}/content of the 100-page fixture against nginx serving the same file from the same
#      disk (wrk, same settings; nginx from Debian, started here on a private port).              Target >= 0.7x.
#      Beside them, Hummingbird alone serving the same bytes from memory (HummingbirdFloor): the HTTP stack's own
#      rate. The three are measured in ROUNDS interleaved rounds (quire, floor, nginx, ...); medians are reported.
#   3. An external change reaching an SSE client: a Python client holds GET /events open while the file is
#      replaced (an atomic rename, uncoordinated: inotify, 20 ms debounce) 200 times; median delay. Target <= 50 ms.
#
#   Benchmarks/compare-store.sh            # or: make compare-store
# Environment: DURATION (wrk seconds, default 10), ROUNDS (content rounds, default 3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
work="$here/work/store"
duration="${DURATION:-10}"
rounds="${ROUNDS:-3}"
say() { printf '==> %s\n' "$*" >&2; }

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for package in wrk nginx-light hyperfine poppler-utils curl; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    say "installing: ${missing[*]}"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

say "building StoreServer and HummingbirdFloor (release)"
(cd "$here" && swift build -c release --product StoreServer >/dev/null \
    && swift build -c release --product HummingbirdFloor >/dev/null)
server="$here/.build/release/StoreServer"
# The service's PDF workers (registrations are opened by one first): quire-pdf of the main package.
say "building quire-pdf (release), the service's PDF worker"
(cd "$repo" && swift build -c release --product quire-pdf >/dev/null)
export QUIRE_PDF_WORKER="$repo/.build/release/quire-pdf"
floor_server="$here/.build/release/HummingbirdFloor"

rm -rf "$work" && mkdir -p "$work/root" "$work/store" "$work/coordination" && chmod 700 "$work/coordination"
export QUIRE_COORDINATION_DIR="$work/coordination"
cp "$repo/Fixtures/hundred-pages.pdf" "$work/root/hundred-pages.pdf"
file="$work/root/hundred-pages.pdf"

port=18080
"$server" "$work/store" "$port" "$work/root" > "$work/server.log" 2>&1 &
server_pid=$!
nginx_pid=""
floor_pid=""
cleanup() {
    kill "$server_pid" 2>/dev/null || true
    if [ -n "$nginx_pid" ]; then kill "$nginx_pid" 2>/dev/null || true; fi
    if [ -n "$floor_pid" ]; then kill "$floor_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT
for _ in $(seq 1 100); do grep -q listening "$work/server.log" 2>/dev/null && break; sleep 0.1; done
base="http://127.0.0.1:$port"
id=$(curl -sf -X POST -H 'Content-Type: application/json' --data "{\"files\": [\"$file\"]}" "$base/documents" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
say "document $id"

wrk_rate() { wrk -t2 -c32 -d"${duration}s" --latency "$1" | awk '/Requests\/sec/ {print $2}'; }

say "1. GET /documents/$id with wrk, ${duration}s"
info_rate=$(wrk_rate "$base/documents/$id")
say "   pdfinfo loop with hyperfine"
hyperfine -N --warmup 5 --runs 100 --export-json "$work/pdfinfo.json" "pdfinfo $file" >/dev/null 2>&1
pdfinfo_rate=$(python3 -c 'import json; print(1 / json.load(open("'"$work/pdfinfo.json"'"))["results"][0]["mean"])')

say "2. GET /documents/$id/content against nginx and Hummingbird alone, $rounds rounds"
cat > "$work/nginx.conf" <<NGINX
worker_processes 2;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    types { application/pdf pdf; }
    server { listen 127.0.0.1:18081; root $work/root; }
}
NGINX
nginx -c "$work/nginx.conf" &
nginx_pid=$!
"$floor_server" "$file" 18082 > "$work/floor.log" 2>&1 &
floor_pid=$!
for _ in $(seq 1 50); do
    curl -sf -o /dev/null "http://127.0.0.1:18081/hundred-pages.pdf" && curl -sf -o /dev/null "http://127.0.0.1:18082/file" \
        && break
    sleep 0.1
done
content_rates=() floor_rates=() nginx_rates=()
for round in $(seq 1 "$rounds"); do
    content_rates+=("$(wrk_rate "$base/documents/$id/content")")
    floor_rates+=("$(wrk_rate "http://127.0.0.1:18082/file")")
    nginx_rates+=("$(wrk_rate "http://127.0.0.1:18081/hundred-pages.pdf")")
    say "   round $round: quire ${content_rates[-1]}, Hummingbird alone ${floor_rates[-1]}, nginx ${nginx_rates[-1]} req/s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
content_rate=$(median "${content_rates[@]}")
floor_rate=$(median "${floor_rates[@]}")
nginx_rate=$(median "${nginx_rates[@]}")
round_ratios=$(for i in "${!content_rates[@]}"; do
    python3 -c "print(f'{${content_rates[$i]} / ${nginx_rates[$i]}:.2f}')"
done | paste -sd, -)

say "3. external change -> SSE event, 200 times"
sse_median=$(python3 "$here/sse-latency.py" "$base" "$file" "$repo/Fixtures/mixed-sizes.pdf" 200)

python3 - "$info_rate" "$pdfinfo_rate" "$content_rate" "$nginx_rate" "$sse_median" "$floor_rate" "$round_ratios" <<'PY'
import sys
info, pdfinfo, content, nginx, sse, floor = (float(v) for v in sys.argv[1:7])
rounds = sys.argv[7]
print(f"| GET /documents/{{id}} | {info:,.0f} req/s | pdfinfo loop | {pdfinfo:,.0f} runs/s | {info / pdfinfo:,.0f}x | >= 50x |")
print(f"| GET /documents/{{id}}/content (100 pages, 103 KB), medians | {content:,.0f} req/s | nginx | {nginx:,.0f} req/s | {content / nginx:.2f}x (rounds: {rounds}) | >= 0.7x |")
print(f"| the same bytes from Hummingbird alone, median | {floor:,.0f} req/s | nginx | {nginx:,.0f} req/s | {floor / nginx:.2f}x | - |")
print(f"| external change -> SSE event, median | {sse:.1f} ms | | | | <= 50 ms |")
PY
