#!/usr/bin/env bash
# The install check (`make install-check`, part of `make test`): installs the executables in BIN into a temporary
# root with `make install PREFIX=/usr DESTDIR=…` and checks what a user of the installed service relies on:
#   - exactly the expected files, nothing else, and `make uninstall` removes them all;
#   - every man page renders with `man -l` (and groff has nothing to warn about);
#   - the completions parse (`bash -n`, `zsh -n`, `fish -n`);
#   - the systemd units (quire.service and quire.socket; the user units quire-coordinator.socket and .service)
#     pass `systemd-analyze verify` offline;
#   - the installed `quire serve`, started from that root with the installed configuration, answers /health.
# Prints one line per check and `N passed, N failed`; exits non-zero when one failed.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/check-lib.sh
. "$repo/scripts/check-lib.sh"
bin="${1:?usage: scripts/check-install.sh BIN (a folder with quire, quire-pdf and quire-store)}"
work="$(mktemp -d)"
chmod 700 "$work"
root="$work/root"
service_pid=""
cleanup() {
    [ -n "$service_pid" ] && kill "$service_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT


make -s -C "$repo" install PREFIX=/usr DESTDIR="$root" QUIRE_BIN="$bin" >"$work/install.log" 2>&1 \
    || { cat "$work/install.log"; echo "0 passed, 1 failed"; exit 1; }

# The man pages: quire.1 and one per subcommand, as `quire --help` lists them, and swift-argument-parser's `help`.
subcommands="$({ "$bin/quire" --help | awk '/^SUBCOMMANDS:/ {on = 1; next} on && /^  [a-z]/ {print $1}'; echo help; } | sort)"
expected_files() {
    printf '%s\n' etc/quire/quire.json usr/bin/quire usr/bin/quire-pdf usr/bin/quire-store \
        usr/lib/systemd/system/quire.service usr/lib/systemd/system/quire.socket \
        usr/lib/systemd/user/quire-coordinator.service usr/lib/systemd/user/quire-coordinator.socket \
        usr/share/bash-completion/completions/quire \
        usr/share/fish/vendor_completions.d/quire.fish usr/share/zsh/vendor-completions/_quire \
        usr/share/man/man1/quire.1
    for command in $subcommands; do echo "usr/share/man/man1/quire.$command.1"; done
}
file_list() {
    diff -u <(expected_files | sort) <(cd "$root" && find . -type f -o -type l | sed 's|^\./||' | sort)
}
check "make install PREFIX=/usr DESTDIR=… installs exactly the expected files ($(expected_files | wc -l))" file_list

render_man_pages() {
    local page warnings
    for page in "$root"/usr/share/man/man1/*.1; do
        MANWIDTH=100 man -l "$page" >"$work/page.txt" 2>"$work/page.err" || { echo "$page: man failed"; return 1; }
        grep -q "^NAME" "$work/page.txt" || { echo "$page: no NAME section"; return 1; }
        warnings="$(groff -mandoc -ww -z "$page" 2>&1)"
        [ -z "$warnings" ] || { echo "$page: $warnings"; return 1; }
    done
}
check "man -l renders every page, with no groff warning" render_man_pages
check "man -l quire.serve.1 lists --log-format" bash -c "MANWIDTH=100 man -l '$root/usr/share/man/man1/quire.serve.1' | grep -q -- '--log-format'"

check "bash -n parses the bash completion" bash -n "$root/usr/share/bash-completion/completions/quire"
check "zsh -n parses the zsh completion" zsh -n "$root/usr/share/zsh/vendor-completions/_quire"
check "fish -n parses the fish completion" fish -n "$root/usr/share/fish/vendor_completions.d/quire.fish"

verify_units() {  # verify_units [--user] DIRECTORY UNIT...
    # Offline: the units as installed, their ExecStart pointed into the temporary root (systemd-analyze checks that
    # the program exists and is executable), verified together so that each socket finds its service.
    local scope=()
    if [ "$1" = "--user" ]; then
        scope=(--user)
        shift
    fi
    local directory="$1" unit output
    shift
    rm -rf "$work/units" && mkdir -p "$work/units"
    for unit in "$@"; do
        sed "s|/usr/bin/quire|$root/usr/bin/quire|; s|/etc/quire|$root/etc/quire|" \
            "$root/$directory/$unit" >"$work/units/$unit"
    done
    # --user reads the user manager's paths: give it a runtime directory of its own when the session has none.
    output="$(cd "$work/units" && XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$work}" SYSTEMD_LOG_LEVEL=notice \
        systemd-analyze verify "${scope[@]}" --man=no "$@" 2>&1)" || { echo "$output"; return 1; }
    [ -z "$output" ] || { echo "$output"; return 1; }
}
check "systemd-analyze verify quire.service and quire.socket (offline)" \
    verify_units usr/lib/systemd/system quire.service quire.socket
check "systemd-analyze verify --user quire-coordinator.socket and .service (offline)" \
    verify_units --user usr/lib/systemd/user quire-coordinator.socket quire-coordinator.service

serve_health() {
    mkdir -m 700 "$work/coordination"
    QUIRE_COORDINATION_DIR="$work/coordination" "$root/usr/bin/quire" serve --config "$root/etc/quire/quire.json" \
        --store "$work/store" --port 0 >"$work/serve.out" 2>"$work/serve.err" &
    service_pid=$!
    local url="" attempt
    for attempt in $(seq 1 600); do
        url="$(sed -n 's/^quire serve: listening on //p' "$work/serve.out")"
        [ -n "$url" ] && break
        kill -0 "$service_pid" 2>/dev/null || break
        sleep 0.1
    done
    [ -n "$url" ] || { echo "no listening line within 60 s"; cat "$work/serve.err"; return 1; }
    local health
    health="$(curl -sS --max-time 10 "$url/health")" || return 1
    echo "$health" | grep -q '"status":"ok"' || { echo "$health"; return 1; }
    kill -TERM "$service_pid"
    wait "$service_pid"
    local status=$?
    service_pid=""
    [ "$status" -eq 0 ] || { echo "exit status $status"; cat "$work/serve.err"; return 1; }
}
check "the installed quire serve, with the installed configuration, answers /health and stops on SIGTERM" serve_health

uninstall_all() {
    make -s -C "$repo" uninstall PREFIX=/usr DESTDIR="$root" >/dev/null || return 1
    local left
    left="$(cd "$root" && find . -type f -o -type l)"
    [ -z "$left" ] || { echo "left behind: $left"; return 1; }
}
check "make uninstall removes every installed file" uninstall_all

check_summary
