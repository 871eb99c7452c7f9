#!/usr/bin/env bash
# Builds the shipped executables in release mode with the flags they ship with; `make release` and the
# side-by-side benchmarks all build through here, so what is measured is what is installed.
#
#   scripts/release-build.sh [--scratch-path DIR] PRODUCT...    # e.g. quire quire-pdf quire-store
#   scripts/release-build.sh [--scratch-path DIR] --show-bin-path
#
# The flags:
#   --static-swift-stdlib   the Swift runtime, Foundation and ICU are linked in: no Swift libraries to install,
#                           and no shared-library loading at every start.
#   -disable-concrete-type-metadata-mangled-name-accessors
#                           code asks for the metadata of a concrete generic type (a Dictionary's storage, say)
#                           through its accessor function, handing over the conformances it knows, instead of
#                           through the type's mangled name, which makes the runtime look every conformance up
#                           by scanning the binary's whole conformance table on first use (about 6,000
#                           records in `quire`). For `quire exec` that was 9 of its 11 table scans and 0.3-0.4 ms
#                           of a 5 ms start (README, "quire exec against flock(1)"). Code size grows by 0.06 %.
#                           A compiler option, not a manifest setting: SwiftPM refuses unsafe flags in packages
#                           that others depend on, and the libraries are meant to be depended on.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch=()
if [ "${1:-}" = "--scratch-path" ]; then
    scratch=(--scratch-path "$2")
    shift 2
fi
flags=(-c release --static-swift-stdlib
    -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors)

cd "$repo"
if [ "${1:-}" = "--show-bin-path" ]; then
    exec "${SWIFT:-swift}" build "${flags[@]}" ${scratch[@]+"${scratch[@]}"} --show-bin-path
fi
[ "$#" -gt 0 ] || { echo "usage: scripts/release-build.sh [--scratch-path DIR] PRODUCT... | --show-bin-path" >&2; exit 64; }
for product in "$@"; do
    "${SWIFT:-swift}" build "${flags[@]}" ${scratch[@]+"${scratch[@]}"} --product "$product"
done
