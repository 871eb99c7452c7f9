#!/usr/bin/env bash
# The install step of `make install` and `make deb` (and, with --uninstall, of `make uninstall`): what goes where.
#
#   scripts/install.sh [--uninstall] BIN DESTDIR BINDIR MANDIR SYSCONFDIR UNITDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR \
#       USERUNITDIR
#
# BIN holds the built quire, quire-pdf and quire-store; the man pages come from .build/man (`make man`).
# The configuration is installed only where none is: an administrator's edits survive a reinstall, and uninstall
# leaves a configuration that differs from the shipped one.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
uninstall=false
if [ "${1:-}" = "--uninstall" ]; then
    uninstall=true
    shift
fi
[ "$#" -eq 10 ] || { echo "usage: scripts/install.sh [--uninstall] BIN DESTDIR BINDIR MANDIR SYSCONFDIR UNITDIR BASHCOMPDIR ZSHCOMPDIR FISHCOMPDIR USERUNITDIR" >&2; exit 64; }
bin="$1" destdir="$2" bindir="$3" mandir="$4" sysconfdir="$5" unitdir="$6" bashdir="$7" zshdir="$8" fishdir="$9"
userunitdir="${10}"
executables=(quire quire-pdf quire-store)
config="$destdir$sysconfdir/quire/quire.json"

if $uninstall; then
    for executable in "${executables[@]}"; do rm -f "$destdir$bindir/$executable"; done
    rm -f "$destdir$mandir"/man1/quire.1 "$destdir$mandir"/man1/quire.*.1
    rm -f "$destdir$unitdir/quire.service" "$destdir$unitdir/quire.socket"
    rm -f "$destdir$userunitdir/quire-coordinator.service" "$destdir$userunitdir/quire-coordinator.socket"
    rm -f "$destdir$bashdir/quire" "$destdir$zshdir/_quire" "$destdir$fishdir/quire.fish"
    if [ -f "$config" ] && cmp -s "$config" "$repo/packaging/quire.json"; then
        rm -f "$config"
        rmdir "$destdir$sysconfdir/quire" 2>/dev/null || true
    elif [ -f "$config" ]; then
        echo "kept $config: it differs from the one installed"
    fi
    exit 0
fi

for executable in "${executables[@]}"; do
    [ -x "$bin/$executable" ] || { echo "scripts/install.sh: $bin/$executable is missing: build it first" >&2; exit 66; }
done
compgen -G "$repo/.build/man/quire*.1" >/dev/null || { echo "scripts/install.sh: no man pages in .build/man: run make man" >&2; exit 66; }

for executable in "${executables[@]}"; do
    install -D -m 0755 "$bin/$executable" "$destdir$bindir/$executable"
done
install -d -m 0755 "$destdir$mandir/man1"
install -m 0644 "$repo"/.build/man/quire*.1 "$destdir$mandir/man1/"
sed -e "s|@BINDIR@|$bindir|g" -e "s|@SYSCONFDIR@|$sysconfdir|g" "$repo/packaging/systemd/quire.service.in" \
    | install -D -m 0644 /dev/stdin "$destdir$unitdir/quire.service"
install -m 0644 "$repo/packaging/systemd/quire.socket" "$destdir$unitdir/quire.socket"
# The user units of the shared coordination arbiter (systemctl --user enable --now quire-coordinator.socket).
sed -e "s|@BINDIR@|$bindir|g" "$repo/packaging/systemd/quire-coordinator.service.in" \
    | install -D -m 0644 /dev/stdin "$destdir$userunitdir/quire-coordinator.service"
install -m 0644 "$repo/packaging/systemd/quire-coordinator.socket" "$destdir$userunitdir/quire-coordinator.socket"
# Completions come from quire itself (swift-argument-parser), so they know every command and option.
# bash-completion sources its files: no interpreter line.
"$bin/quire" --generate-completion-script bash | sed '1{/^#!/d}' | install -D -m 0644 /dev/stdin "$destdir$bashdir/quire"
"$bin/quire" --generate-completion-script zsh | install -D -m 0644 /dev/stdin "$destdir$zshdir/_quire"
"$bin/quire" --generate-completion-script fish | install -D -m 0644 /dev/stdin "$destdir$fishdir/quire.fish"
if [ ! -e "$config" ]; then
    install -D -m 0644 "$repo/packaging/quire.json" "$config"
fi
