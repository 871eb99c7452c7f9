#!/usr/bin/env bash
# Checks the Debian package (`make deb-check`, run by .ci/run):
#   - `dpkg-deb --contents`: the install step's files, the documentation, nothing else; the conffile is declared;
#   - lintian: no tag beyond those justified in Docs/operating.md ("The Debian package");
#   - dpkg -i, -r and -P into a throwaway root (`dpkg --root`, maintainer scripts run outside a chroot with
#     DPKG_ROOT set, as `--force-script-chrootless` does), with the commands that would change this machine —
#     adduser, deluser, getent, chown, deb-systemd-helper, deb-systemd-invoke, systemctl — replaced by stubs
#     that record their arguments: the user is created, the unit enabled and not started; removal keeps the
#     store and the configuration; purge removes both.
# Prints one line per check and `N passed, N failed`.
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/check-lib.sh
. "$repo/scripts/check-lib.sh"
deb="$(readlink -f "${1:?usage: scripts/check-deb.sh PACKAGE.deb}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

contents() {
    local listed
    listed="$(dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./||; s|/$||' | grep -v '^$' | sort)"
    for path in usr/bin/quire usr/bin/quire-pdf usr/bin/quire-store etc/quire/quire.json \
        usr/lib/systemd/system/quire.service usr/lib/systemd/system/quire.socket \
        usr/lib/systemd/user/quire-coordinator.service usr/lib/systemd/user/quire-coordinator.socket \
        usr/share/man/man1/quire.serve.1.gz \
        usr/share/bash-completion/completions/quire usr/share/zsh/vendor-completions/_quire \
        usr/share/fish/vendor_completions.d/quire.fish usr/share/doc/quire/copyright usr/share/doc/quire/changelog.gz; do
        grep -qx "$path" <<<"$listed" || { echo "missing: $path"; return 1; }
    done
    local stray
    stray="$(grep -v -E '^(etc|etc/quire|usr|usr/bin|usr/lib|usr/lib/systemd|usr/lib/systemd/system|usr/lib/systemd/user|usr/share|usr/share/man|usr/share/man/man1|usr/share/bash-completion|usr/share/bash-completion/completions|usr/share/zsh|usr/share/zsh/vendor-completions|usr/share/fish|usr/share/fish/vendor_completions.d|usr/share/doc|usr/share/doc/quire)$' <<<"$listed" \
        | grep -v -E '^(usr/bin/quire(-pdf|-store)?|etc/quire/quire.json|usr/lib/systemd/system/quire\.(service|socket)|usr/lib/systemd/user/quire-coordinator\.(service|socket)|usr/share/man/man1/quire(\.[a-z-]+)?\.1\.gz|usr/share/bash-completion/completions/quire|usr/share/zsh/vendor-completions/_quire|usr/share/fish/vendor_completions.d/quire.fish|usr/share/doc/quire/(copyright|changelog.gz))$')"
    [ -z "$stray" ] || { echo "not from the install step: $stray"; return 1; }
    [ "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" = "/etc/quire/quire.json" ] || { echo "conffiles"; return 1; }
}
check "dpkg-deb --contents: the install step's files and the documentation, nothing else; the conffile declared" contents

run_lintian() {
    # Tags justified in Docs/operating.md, "The Debian package"; any other fails the check.
    local justified='^(bad-whatis-entry|copyright-without-copyright-notice|custom-library-search-path|embedded-library|no-manual-page)$'
    local tags unexpected
    tags="$(lintian --no-tag-display-limit "$deb" 2>&1 | sed -n 's/^[EWIPX]: quire[^:]*: \([a-z0-9.+-]*\).*/\1/p' | sort | uniq -c)"
    echo "$tags"
    unexpected="$(awk '{print $2}' <<<"$tags" | grep -v -E "$justified" || true)"
    [ -z "$unexpected" ] || { echo "unjustified lintian tags: $unexpected"; return 1; }
}
check "lintian: only the tags Docs/operating.md justifies" run_lintian

# The throwaway root and the stubs.
root="$work/root"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers" "$work/stubs"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
log="$work/calls.log"
: >"$log"
for command in adduser deluser chown deb-systemd-helper deb-systemd-invoke systemctl; do
    printf '#!/bin/sh\necho "%s $*" >>"%s"\nexit 0\n' "$command" "$log" >"$work/stubs/$command"
done
# getent: the user exists once adduser ran (and until deluser ran).
printf '#!/bin/sh\ngrep -q "^adduser" "%s" && ! grep -q "^deluser" "%s"\n' "$log" "$log" >"$work/stubs/getent"
# deb-systemd-helper's was-enabled: not before the first enable.
printf '#!/bin/sh\necho "deb-systemd-helper $*" >>"%s"\n[ "$1 $2" = "--quiet was-enabled" ] && { grep -q "deb-systemd-helper enable" "%s"; exit; }\nexit 0\n' "$log" "$log" >"$work/stubs/deb-systemd-helper"
chmod +x "$work/stubs"/*
dpkg_root() {
    PATH="$work/stubs:$PATH" dpkg --root="$root" --force-script-chrootless --force-depends --force-not-root \
        --log="$work/dpkg.log" "$@"
}

install_package() {
    dpkg_root -i "$deb" || return 1
    [ -x "$root/usr/bin/quire" ] && [ -f "$root/etc/quire/quire.json" ] || { echo "files not installed"; return 1; }
    [ -d "$root/var/lib/quire" ] || { echo "no /var/lib/quire"; return 1; }
    grep -q "^adduser --system --group --home /var/lib/quire" "$log" || { cat "$log"; return 1; }
    grep -q "^chown quire:quire $root/var/lib/quire" "$log" || { cat "$log"; return 1; }
    grep -q "^deb-systemd-helper enable quire.service" "$log" || { cat "$log"; return 1; }
    # quire.socket: shipped and its state recorded, never enabled by the package (socket activation is a choice).
    grep -q "^deb-systemd-helper update-state quire.socket" "$log" || { cat "$log"; return 1; }
    ! grep -q "enable quire.socket" "$log" || { echo "quire.socket enabled:"; cat "$log"; return 1; }
    ! grep -E -q "(start|restart) quire.service" "$log" || { echo "started:"; cat "$log"; return 1; }
    dpkg_root -s quire | grep -q "^ /etc/quire/quire.json [0-9a-f]*$" || { dpkg_root -s quire; return 1; }
    "$root/usr/bin/quire" --version | grep -q . || { echo "the installed quire does not run"; return 1; }
}
check "dpkg -i into a throwaway root: files, /var/lib/quire, the quire user, the unit enabled and not started" install_package

remove_package() {
    echo "a document" >"$root/var/lib/quire/kept"
    echo '{"port": 9000}' >"$root/etc/quire/quire.json"
    dpkg_root -r quire || return 1
    [ ! -e "$root/usr/bin/quire" ] || { echo "quire still installed"; return 1; }
    [ -f "$root/var/lib/quire/kept" ] || { echo "remove deleted the store"; return 1; }
    [ -f "$root/etc/quire/quire.json" ] || { echo "remove deleted the configuration"; return 1; }
    ! grep -q "^deluser" "$log" || { echo "remove deleted the user"; return 1; }
}
check "dpkg -r: the program goes; the store, the configuration and the user stay" remove_package

purge_package() {
    dpkg_root -P quire || return 1
    [ ! -e "$root/var/lib/quire" ] || { echo "purge kept the store"; return 1; }
    [ ! -e "$root/etc/quire" ] || { echo "purge kept /etc/quire"; return 1; }
    grep -q "^deluser --system --quiet quire" "$log" || { cat "$log"; return 1; }
    grep -q "^deb-systemd-helper purge quire.socket quire.service" "$log" || { cat "$log"; return 1; }
}
check "dpkg -P: the store, the configuration and the user go" purge_package

check_summary
