#!/usr/bin/env bash
# Regenerate every PDF fixture in this folder from scratch.
#
#   Fixtures/generate.sh
#
# Needs only Debian packages (apt) and PyPI; installs what is missing:
#   - qpdf                      (apt-get, only if not installed)
#   - a venv at ${QUIRE_FIXTURE_VENV:-/tmp/quire-fixtures-venv} with pinned
#     reportlab, fpdf2, pypdf and cryptography (only if missing or wrong)
#   - libjs-pdf is downloaded (apt-get download, not installed) for one
#     third-party file.
# Output is byte-reproducible on Debian 12 with the pinned versions below;
# SHA256SUMS lists the expected hashes.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="${QUIRE_FIXTURE_VENV:-/tmp/quire-fixtures-venv}"
PYTHON="${PYTHON:-python3}"
PY_REQS=(reportlab==5.1.0 fpdf2==2.8.9 pypdf==7.1.0 cryptography==50.0.2)
# helloworld.pdf as shipped in bookworm's libjs-pdf 2.14.305+dfsg-2
HELLO_SHA256=c9efcaa374939ff19fc37974131f1db6d457eb942700c02a63fc9dda983e1400

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

log() { printf '==> %s\n' "$*" >&2; }

# Run an apt-get command; if it fails (e.g. no package lists yet on a fresh
# machine), run 'apt-get update' once and try again.
APT_UPDATED=0
apt_retry() {
    if "$@"; then return 0; fi
    if [ "$APT_UPDATED" -eq 0 ]; then
        log "apt-get failed; running apt-get update and retrying"
        $SUDO apt-get update
        APT_UPDATED=1
        "$@"
    else
        return 1
    fi
}

# --- 1. tools ---------------------------------------------------------------
dpkg -s qpdf >/dev/null 2>&1 || apt_retry $SUDO apt-get install -y qpdf

venv_ok() {
    [ -x "$VENV/bin/python" ] || return 1
    "$VENV/bin/python" - "${PY_REQS[@]}" <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
for req in sys.argv[1:]:
    name, want = req.split("==")
    if version(name) != want:
        sys.exit(1)
import reportlab, fpdf, pypdf, cryptography  # noqa: F401
EOF
}

if ! venv_ok; then
    log "setting up Python venv at $VENV"
    if [ ! -x "$VENV/bin/python" ]; then
        if ! "$PYTHON" -m venv "$VENV"; then
            # Debian's own python3 needs python3-venv for ensurepip.
            rm -rf "$VENV"
            apt_retry $SUDO apt-get install -y python3-venv
            "$PYTHON" -m venv "$VENV"
        fi
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PY_REQS[@]}"
    venv_ok || { echo "venv at $VENV does not have ${PY_REQS[*]}" >&2; exit 1; }
fi

# --- 2. build everything in a scratch folder ----------------------------------
BUILD="$(mktemp -d)"
chmod 755 "$BUILD"
trap 'rm -rf "$BUILD"' EXIT
OUT="$BUILD/out"
mkdir "$OUT"

log "generating PDFs with reportlab / fpdf2 / pypdf"
"$VENV/bin/python" "$HERE/gen_fixtures.py" "$OUT"

log "qpdf variants"
# RC4-128: reproducible thanks to qpdf's test flag --static-id (the key is
# derived from the passwords and the /ID).  AES-256 is done in
# gen_fixtures.py because qpdf's R6 output is random even with
# --static-id --static-aes-iv.
qpdf --static-id --static-aes-iv --allow-weak-crypto \
    --encrypt userpw ownerpw 128 --use-aes=n -- \
    "$OUT/one-page.pdf" "$OUT/encrypted-rc4-128.pdf"
qpdf --deterministic-id --linearize "$OUT/hundred-pages.pdf" "$OUT/linearized.pdf"

log "libjs-pdf helloworld.pdf (third party, Apache-2.0)"
DEB="$BUILD/deb"
mkdir "$DEB"
chmod 777 "$DEB"  # lets apt's _apt user write there (avoids a sandbox warning)
(cd "$DEB" && apt_retry apt-get download libjs-pdf)
dpkg -x "$DEB"/libjs-pdf_*.deb "$DEB/x"
COPYRIGHT="$DEB/x/usr/share/doc/libjs-pdf/copyright"
HELLO="$DEB/x/usr/share/doc/libjs-pdf/examples/learning/helloworld.pdf"
# Licence check: the file lives under examples/learning/, which only the
# catch-all 'Files: *' stanza covers; that stanza must still say Apache-2.0
# and no stanza may name examples/learning/ explicitly.
STAR_STANZA="$(awk 'BEGIN{RS="";ORS="\n\n"} /^Files: \*\n/' "$COPYRIGHT")"
if ! grep -qx 'License: Apache-2.0' <<<"$STAR_STANZA" \
    || grep -q 'examples/learning' "$COPYRIGHT"; then
    echo "libjs-pdf's copyright file changed: re-check the licence of helloworld.pdf" >&2
    exit 1
fi
got="$(sha256sum "$HELLO" | cut -d' ' -f1)"
if [ "$got" != "$HELLO_SHA256" ]; then
    log "WARNING: helloworld.pdf differs from the known bookworm file ($got)"
fi
cp "$HELLO" "$OUT/libjs-pdf-helloworld.pdf"
{
    echo "libjs-pdf-helloworld.pdf"
    echo "========================"
    echo
    echo "Source: Debian package libjs-pdf ($(dpkg-deb -f "$DEB"/libjs-pdf_*.deb Version)),"
    echo "file /usr/share/doc/libjs-pdf/examples/learning/helloworld.pdf,"
    echo "copied unchanged. Upstream: PDF.js (Mozilla), examples/learning/helloworld.pdf."
    echo
    echo "Relevant stanzas of /usr/share/doc/libjs-pdf/copyright in that package."
    echo "The file is covered by 'Files: *' (Apache-2.0). The package also lists the"
    echo "older path examples/helloworld/helloworld.pdf (which it does not ship) as"
    echo "GFDL-1.3+, so both licence texts are reproduced below."
    echo
    awk 'BEGIN{RS="";ORS="\n\n"} /^Files: \*\n/ || /^Files: examples\/helloworld\/helloworld.pdf/' "$COPYRIGHT"
    echo "----------------------------------------------------------------------"
    echo "Apache License 2.0 (/usr/share/common-licenses/Apache-2.0)"
    echo "----------------------------------------------------------------------"
    cat /usr/share/common-licenses/Apache-2.0
    echo
    echo "----------------------------------------------------------------------"
    echo "GNU Free Documentation License 1.3 (/usr/share/common-licenses/GFDL-1.3)"
    echo "----------------------------------------------------------------------"
    cat /usr/share/common-licenses/GFDL-1.3
} > "$OUT/libjs-pdf-helloworld.LICENSE.txt"

# --- 3. install into Fixtures/ -------------------------------------------------
(cd "$OUT" && LC_ALL=C sha256sum -- *.pdf) > "$OUT/SHA256SUMS"
cp -f "$OUT"/* "$HERE"/
log "wrote $(ls "$OUT" | wc -l) files to $HERE"
cat "$OUT/SHA256SUMS"
