#!/usr/bin/env bash
# Checks the Debian package under a real systemd (`make systemd-check`, run by .ci/run through `make deb-check`):
# a minimal Debian 12 (debootstrap) booted with systemd as its PID 1 in a container (systemd-nspawn, sharing this
# machine's network), the package installed there with apt, then:
#   - the unit is enabled and not started by the installation, and quire.socket is not enabled;
#   - `systemctl start` returns once quire serve sent READY=1 (Type=notify), with a STATUS= line, and /health,
#     an upload and a page's text answer; the PDF workers run under the unit's hardening;
#   - `systemctl reload` (SIGHUP) reloads and says so in the journal at priority notice;
#   - a SIGKILL of the main process is a failure systemd restarts (Restart=on-failure);
#   - `systemctl stop` ends it cleanly (Result=success, exit status 0);
#   - quire.socket: the service started by a connection to the socket systemd holds (socket activation);
#   - `dpkg -P` removes the unit, the store and the configuration.
# (A check reads a command's whole output before it greps: `grep -q` stops at the first match, and with pipefail the
# writer's SIGPIPE would fail the check.) Needs root, systemd-nspawn (systemd-container) and debootstrap, and Debian's mirror. Prints one line per check
# and `N passed, N failed`.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/check-lib.sh
. "$repo/scripts/check-lib.sh"
deb="$(readlink -f "${1:?usage: scripts/check-systemd.sh PACKAGE.deb}")"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
if [ "$(id -u)" -ne 0 ]; then
    echo "scripts/check-systemd.sh: needs root (debootstrap and systemd-nspawn)" >&2
    exit 2
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/quire-systemd.XXXXXX")"
root="$work/root"
container=""
cleanup() {
    if [ -n "$container" ] && kill -0 "$container" 2>/dev/null; then
        kill -TERM "$container" 2>/dev/null
        for _ in $(seq 1 100); do kill -0 "$container" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$container" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT

echo "debootstrap: a minimal Debian 12 with systemd into $root"
if ! debootstrap --variant=minbase --include=systemd,dbus,curl,ca-certificates bookworm "$root" "$mirror" \
    >"$work/debootstrap.log" 2>&1; then
    tail -20 "$work/debootstrap.log" >&2
    echo "scripts/check-systemd.sh: debootstrap failed" >&2
    exit 1
fi
cp "$deb" "$root/root/quire.deb"
cp "$repo/Fixtures/one-page.pdf" "$root/root/one-page.pdf"

# systemd as PID 1 of the container; --register=no and --keep-unit: this machine has no systemd of its own.
systemd-nspawn -D "$root" --register=no --keep-unit --boot --quiet >"$work/console.log" 2>&1 </dev/null &
nspawn=$!
container=$nspawn
# The container's PID 1 is found by its name: nspawn's first child may still be nspawn itself (before it execs the
# container's init, or as the "outer child" that forks PID 1 and exits), and entering that one's namespaces fails.
leader=""
for _ in $(seq 1 300); do
    leader="$(ps -o pid=,comm= --ppid "$nspawn" 2>/dev/null | awk '$2 == "systemd" { print $1; exit }')"
    [ -n "$leader" ] && break
    kill -0 "$nspawn" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$leader" ]; then
    cat "$work/console.log" >&2
    ps -o pid=,ppid=,comm= --ppid "$nspawn" >&2 2>/dev/null || true
    echo "scripts/check-systemd.sh: the container's systemd did not start" >&2
    exit 1
fi
inside() { nsenter -t "$leader" -m -p -u -i -n -- "$@"; }
state=""
for _ in $(seq 1 300); do
    state="$(inside systemctl is-system-running 2>/dev/null)"
    case "$state" in running | degraded) break ;; esac
    sleep 0.2
done
case "$state" in
    running | degraded) echo "systemd is up in the container ($state)" ;;
    *)
        tail -20 "$work/console.log" >&2
        echo "scripts/check-systemd.sh: systemd did not come up in the container: $state" >&2
        exit 1
        ;;
esac

installed() {
    inside sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /root/quire.deb' \
        >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log"; return 1; }
    [ "$(inside systemctl is-enabled quire.service)" = enabled ] || { echo "quire.service is not enabled"; return 1; }
    [ "$(inside systemctl is-active quire.service)" = inactive ] || { echo "the installation started it"; return 1; }
    [ "$(inside systemctl is-enabled quire.socket)" = disabled ] || { echo "quire.socket was enabled"; return 1; }
}
check "apt installs the package: quire.service enabled, not started; quire.socket not enabled" installed

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
inside mkdir -p /etc/systemd/system/quire.service.d /etc/systemd/system/quire.socket.d
printf '[Service]\nEnvironment=QUIRE_PORT=%s\n' "$port" >"$root/etc/systemd/system/quire.service.d/port.conf"
inside systemctl daemon-reload
url="http://127.0.0.1:$port"

started() {
    inside systemctl start quire.service || { inside journalctl -u quire --no-pager | tail -20; return 1; }
    [ "$(inside systemctl is-active quire.service)" = active ] || return 1
    inside systemctl show quire.service -p StatusText | grep "PDF workers" >/dev/null \
        || { echo "no STATUS= line: $(inside systemctl show quire.service -p StatusText)"; return 1; }
    [ "$(inside curl -s -o /dev/null -w '%{http_code}' "$url/health")" = 200 ] || { echo "/health"; return 1; }
    local id
    id="$(inside curl -s -X POST -H 'Content-Type: application/pdf' --data-binary @/root/one-page.pdf \
        "$url/documents" | sed -n 's/.*"id":"\([^"]*\)".*/\1/p')"
    [ -n "$id" ] || { echo "the upload was refused"; inside journalctl -u quire --no-pager | tail -10; return 1; }
    inside curl -s "$url/documents/$id/pages/1/text" | grep "Hello from page one." >/dev/null \
        || { echo "no page text (PDF workers under the unit's hardening)"; inside journalctl -u quire --no-pager | tail -10; return 1; }
}
check "systemctl start returns after READY=1, with a STATUS= line; /health, an upload and a page's text answer" started

reloaded() {
    inside systemctl reload quire.service || { inside journalctl -u quire --no-pager | tail -10; return 1; }
    [ "$(inside systemctl is-active quire.service)" = active ] || return 1
    inside journalctl -u quire.service -p notice --no-pager | grep "configuration reloaded" >/dev/null \
        || { echo "no 'configuration reloaded' line at priority notice"; return 1; }
}
check "systemctl reload: SIGHUP reloads, the journal says so at priority notice" reloaded

restarted() {
    local before after
    before="$(inside systemctl show quire.service -p MainPID --value)"
    inside systemctl kill -s SIGKILL --kill-whom=main quire.service
    for _ in $(seq 1 100); do
        after="$(inside systemctl show quire.service -p MainPID --value)"
        if [ "$(inside systemctl is-active quire.service)" = active ] && [ "$after" != 0 ] && [ "$after" != "$before" ]; then
            [ "$(inside curl -s -o /dev/null -w '%{http_code}' "$url/health")" = 200 ] && return 0
        fi
        sleep 0.1
    done
    echo "not restarted: MainPID $before -> $after, $(inside systemctl is-active quire.service)"
    return 1
}
check "a SIGKILL of quire serve is a failure systemd restarts (Restart=on-failure)" restarted

stopped() {
    inside systemctl stop quire.service || return 1
    local shown
    shown="$(inside systemctl show quire.service -p Result -p ExecMainStatus -p ActiveState)"
    printf '%s\n' "$shown" | grep -qx "Result=success" && printf '%s\n' "$shown" | grep -qx "ExecMainStatus=0" \
        && printf '%s\n' "$shown" | grep -qx "ActiveState=inactive" || { echo "$shown"; return 1; }
}
check "systemctl stop: a clean stop (Result=success, exit status 0)" stopped

activated() {
    printf '[Socket]\nListenStream=\nListenStream=127.0.0.1:%s\n' "$port" \
        >"$root/etc/systemd/system/quire.socket.d/port.conf"
    inside systemctl daemon-reload
    local since
    since="$(date +%s)"
    inside systemctl start quire.socket || return 1
    [ "$(inside systemctl is-active quire.service)" = inactive ] || { echo "the service ran before a connection"; return 1; }
    [ "$(inside curl -s -o /dev/null -w '%{http_code}' --max-time 30 "$url/health")" = 200 ] || return 1
    [ "$(inside systemctl is-active quire.service)" = active ] || return 1
    # The journal takes the line from the service's standard output a moment after it is written.
    local line=""
    for _ in $(seq 1 50); do
        line="$(inside journalctl -u quire.service --no-pager --since "@$since" | grep "listening on $url")" && break
        sleep 0.1
    done
    [ -n "$line" ] || { echo "no 'listening on $url' line since the socket started"; return 1; }
    inside systemctl stop quire.socket quire.service
}
check "quire.socket: the first connection starts quire serve on the socket systemd holds" activated

purged() {
    inside sh -c 'DEBIAN_FRONTEND=noninteractive dpkg -P quire' >"$work/purge.log" 2>&1 || { tail -10 "$work/purge.log"; return 1; }
    for path in /usr/lib/systemd/system/quire.service /var/lib/quire /etc/quire /usr/bin/quire; do
        [ ! -e "$root$path" ] || { echo "$path is still there after the purge"; return 1; }
    done
}
check "dpkg -P removes the unit, the store and the configuration" purged

check_summary
