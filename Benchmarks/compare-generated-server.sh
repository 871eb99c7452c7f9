#!/usr/bin/env bash
# Issue 33: the service's Hummingbird routes against the handlers swift-openapi-generator makes from openapi.yaml,
# served by swift-openapi-hummingbird, side by side in one run (release build of GeneratedServerFloor, one process,
# two listeners, the same answers from memory):
#   1. GET /documents/{id}: the routes answer the info's JSON encoded once, as the service keeps it per version;
#      the generated handler answers a DocumentInfo value, which the runtime encodes at each request.
#   2. GET /documents/{id}/content of the 100-page fixture: a buffer against an HTTPBody of the same bytes.
# wrk -t2 -c32, DURATION seconds each (default 10), ROUNDS interleaved rounds (default 3); medians and routes/generated.
#   Benchmarks/compare-generated-server.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
duration="${DURATION:-10}"
rounds="${ROUNDS:-3}"
say() { printf '==> %s\n' "$*" >&2; }

if ! command -v wrk >/dev/null; then
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
    say "installing wrk"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends wrk
fi

say "building GeneratedServerFloor (release)"
(cd "$here" && swift build -c release --product GeneratedServerFloor >/dev/null)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
out=$(mktemp)
"$here/.build/release/GeneratedServerFloor" "$repo/Fixtures/hundred-pages.pdf" "$port" >"$out" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 100); do [ "$(grep -c listening "$out")" -ge 2 ] && break; sleep 0.1; done
[ "$(grep -c listening "$out")" -ge 2 ] || { echo "GeneratedServerFloor did not start" >&2; exit 1; }

rate() { wrk -t2 -c32 -d"${duration}s" "$1" | awk '/Requests\/sec/ {print $2}'; }
median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
for path in /documents/0123456789abcdef0123456789abcdef /documents/0123456789abcdef0123456789abcdef/content; do
    routes=(); generated=()
    for _ in $(seq "$rounds"); do
        routes+=("$(rate "http://127.0.0.1:$port$path")")
        generated+=("$(rate "http://127.0.0.1:$((port + 1))$path")")
    done
    r=$(printf '%s\n' "${routes[@]}" | median)
    g=$(printf '%s\n' "${generated[@]}" | median)
    printf 'GET %s: routes %.0f req/s, generated handler %.0f req/s: routes %.2fx (rounds: routes %s; generated %s)\n' \
        "${path/0123456789abcdef0123456789abcdef/ID}" "$r" "$g" "$(awk -v r="$r" -v g="$g" 'BEGIN {print r / g}')" "${routes[*]}" "${generated[*]}"
done
