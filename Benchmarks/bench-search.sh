#!/usr/bin/env bash
# make bench-search: full-text search on one node, release build, one run (Benchmarks/bench-search.py prints the
# table). Installs poppler-utils when missing (pdftotext is the yardstick), fetches gnuplot.pdf (311 pages) and
# libtasn1.pdf from Debian's packages into Benchmarks/work/ (downloaded once, as compare-poppler-utils.sh does).
# Environment: BENCH_SEARCH_DOCUMENTS (default 100000) one-page documents for the query figures; QUIRE_BUILD a
# directory with release quire-store and quire-pdf (skips the build).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
work="$here/work"
mkdir -p "$work"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
say() { printf '==> %s\n' "$*" >&2; }

if ! command -v pdftotext >/dev/null || ! command -v pdfinfo >/dev/null; then
    say "installing poppler-utils"
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends poppler-utils
fi

from_deb() {
    local package="$1" inside="$2" dir="$work/$1"
    if [ ! -f "$dir$inside" ] && [ ! -f "$dir$inside.gz" ]; then
        say "fetching $package (apt-get download + dpkg -x into ${dir#"$repo"/})"
        mkdir -p "$dir"
        local deb
        deb="$(cd "$work" && ls "${package}"_*.deb 2>/dev/null | head -n 1 || true)"
        if [ -z "$deb" ]; then
            (cd "$work" && apt-get download "$package" >/dev/null 2>&1) \
                || { "${sudo_cmd[@]}" apt-get update -qq; (cd "$work" && apt-get download "$package" >/dev/null); }
            deb="$(cd "$work" && ls "${package}"_*.deb | head -n 1)"
        fi
        dpkg -x "$work/$deb" "$dir"
    fi
    if [ ! -f "$dir$inside" ] && [ -f "$dir$inside.gz" ]; then gzip -dk "$dir$inside.gz"; fi
    printf '%s\n' "$dir$inside"
}

libtasn1=/usr/share/doc/libtasn1-doc/libtasn1.pdf
[ -f "$libtasn1" ] || libtasn1="$(from_deb libtasn1-doc /usr/share/doc/libtasn1-doc/libtasn1.pdf)"
gnuplot="$(from_deb gnuplot-doc /usr/share/doc/gnuplot/gnuplot.pdf)"

if [ -n "${QUIRE_BUILD:-}" ]; then
    build="$QUIRE_BUILD"
else
    SWIFT="${SWIFT:-swift}" "$repo/scripts/release-build.sh" --scratch-path "$repo/.build-release" quire-store quire-pdf
    build="$(SWIFT="${SWIFT:-swift}" "$repo/scripts/release-build.sh" --scratch-path "$repo/.build-release" --show-bin-path)"
fi
exec python3 "$here/bench-search.py" "$build" "${BENCH_SEARCH_DOCUMENTS:-100000}" "$gnuplot" "$libtasn1"
