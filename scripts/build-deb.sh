#!/usr/bin/env bash
# `make deb`: a Debian package of quire from the same install step as `make install` (PREFIX=/usr), with the
# maintainer scripts of packaging/debian (the quire system user, /var/lib/quire as the store, quire.service enabled
# but not started, the data removed on purge only) and /etc/quire/quire.json as a conffile.
#
#   scripts/build-deb.sh BIN OUTPUT_DIR      # BIN: a folder with the built quire, quire-pdf and quire-store
#
# Prints the path of the .deb it wrote.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:?usage: scripts/build-deb.sh BIN OUTPUT_DIR}"
output="${2:?usage: scripts/build-deb.sh BIN OUTPUT_DIR}"
version="$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' "$repo/Sources/QuireCommandLine/QuireVersion.swift")"
arch="$(dpkg --print-architecture)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/quire_${version}_$arch"

make -s -C "$repo" install PREFIX=/usr DESTDIR="$root" QUIRE_BIN="$bin" >/dev/null
# Stripped as dh_strip strips (the symbol table and debug information; Swift's metadata sections stay).
for executable in quire quire-pdf quire-store; do
    strip --remove-section=.comment --remove-section=.note --strip-unneeded "$root/usr/bin/$executable"
done
# Man pages compressed, as Debian policy asks.
gzip -9n "$root"/usr/share/man/man1/*.1
install -D -m 0644 "$repo/packaging/debian/copyright" "$root/usr/share/doc/quire/copyright"
{
    echo "quire ($version) unstable; urgency=medium"
    echo
    echo "  * Built from the Quire repository, $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)."
    echo
    echo " -- The Quire authors <quire@localhost.invalid>  $(date -R -u -d @"${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n >"$work/changelog.gz"
install -m 0644 "$work/changelog.gz" "$root/usr/share/doc/quire/changelog.gz"

install -d -m 0755 "$root/DEBIAN"
for script in postinst prerm postrm; do install -m 0755 "$repo/packaging/debian/$script" "$root/DEBIAN/$script"; done
install -m 0644 "$repo/packaging/debian/conffiles" "$root/DEBIAN/conffiles"
size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
# The packages of the shared libraries the executables name (DT_NEEDED, resolved by ldd, then dpkg -S), as
# dpkg-shlibdeps would find them; a library of no package (a debug build's Swift runtime) is left out.
shlibs="$(for executable in quire quire-pdf quire-store; do
        needed="$(readelf -d "$root/usr/bin/$executable" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
        ldd "$root/usr/bin/$executable" | awk -v needed="$needed" \
            'BEGIN {split(needed, names, "\n"); for (i in names) want[names[i]] = 1} ($1 in want) && $3 ~ /^\// {print $3}'
    done | sort -u | while read -r library; do
        dpkg -S "$library" 2>/dev/null || dpkg -S "$(readlink -f "$library")" 2>/dev/null || true
    done | cut -d: -f1 | sort -u | paste -sd, | sed 's/,/, /g')"
[ -n "$shlibs" ] || { echo "scripts/build-deb.sh: found no library packages" >&2; exit 70; }
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@SHLIBS@/$shlibs/" \
    "$repo/packaging/debian/control.in" \
    >"$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | sort | xargs md5sum) \
    >"$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"
find "$root" -type d -exec chmod 0755 {} +

mkdir -p "$output"
deb="$output/quire_${version}_$arch.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
