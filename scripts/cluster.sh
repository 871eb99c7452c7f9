#!/usr/bin/env bash
# `make cluster`: a PostgreSQL and three `quire serve` nodes on it, on http://127.0.0.1:8081 … 8083, sharing one store
# directory and one root (.quire-cluster/store and .quire-cluster/root), each with its own coordination directory
# (as nodes on separate hosts would have), until Ctrl-C. PostgreSQL (Debian's, installed by `make deps`) runs in
# .quire-cluster/postgres on a free port, as the `postgres` user when this runs as root (it refuses root).
# QUIRE_CLUSTER_DIR moves the directory; QUIRE_CLUSTER_PORTS (default "8081 8082 8083") sets the nodes' ports.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="${QUIRE_CLUSTER_DIR:-$repo/.quire-cluster}"
ports="${QUIRE_CLUSTER_PORTS:-8081 8082 8083}"
say() { printf '==> %s\n' "$*" >&2; }

bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[ -x "$bin/pg_ctl" ] || { echo "PostgreSQL is not installed: run make deps" >&2; exit 1; }
as_postgres=()
[ "$(id -u)" -eq 0 ] && as_postgres=(/usr/sbin/runuser -u postgres --)

mkdir -p "$work/store" "$work/root"
[ -d "$work/postgres" ] || { mkdir -p "$work/postgres" && chmod 700 "$work/postgres"; }
[ "$(id -u)" -eq 0 ] && chown postgres "$work/postgres"
if [ ! -f "$work/postgres/data/PG_VERSION" ]; then
    say "creating the cluster's PostgreSQL in $work/postgres"
    "${as_postgres[@]}" "$bin/initdb" -D "$work/postgres/data" -U quire -A trust -E UTF8 --locale=C >/dev/null
fi
pg_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"${as_postgres[@]}" "$bin/pg_ctl" -D "$work/postgres/data" -l "$work/postgres/server.log" -w -t 60 \
    -o "-p $pg_port -k $work/postgres -c listen_addresses=127.0.0.1" start >/dev/null
nodes=()
cleanup() {
    say "stopping the nodes and PostgreSQL"
    for pid in "${nodes[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${nodes[@]}"; do wait "$pid" 2>/dev/null || true; done
    "${as_postgres[@]}" "$bin/pg_ctl" -D "$work/postgres/data" -m fast stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
trap "exit 130" INT TERM
"$bin/psql" -h 127.0.0.1 -p "$pg_port" -U quire -d postgres -qtAc \
    "SELECT 1 FROM pg_database WHERE datname = 'quire'" | grep -q 1 \
    || "$bin/createdb" -h 127.0.0.1 -p "$pg_port" -U quire quire
database="postgres://quire@127.0.0.1:$pg_port/quire"
say "PostgreSQL at $database"

for port in $ports; do
    coordination="$work/coordination-$port"
    mkdir -p "$coordination" && chmod 700 "$coordination"
    QUIRE_COORDINATION_DIR="$coordination" "$repo/.build/debug/quire" serve --port "$port" \
        --store "$work/store" --root "$work/root" --database "$database" &
    nodes+=("$!")
done
say "three nodes: $(for port in $ports; do printf 'http://127.0.0.1:%s/ ' "$port"; done)— Ctrl-C stops them"
say "files to register go in $work/root; quire status --server http://127.0.0.1:${ports%% *} lists the nodes"
wait -n "${nodes[@]}" || true
