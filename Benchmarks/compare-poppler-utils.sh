#!/usr/bin/env bash
# Side-by-side timings of the `quire` CLI (release, static Swift stdlib) against poppler-utils, with hyperfine.
#
#   Benchmarks/compare-poppler-utils.sh            # or: make compare
#
# It installs what is missing (hyperfine, poppler-utils, the build's -dev packages) with apt-get, builds quire in
# release into .build-release, fetches gnuplot.pdf (311 pages) from Debian's gnuplot-doc into Benchmarks/work/
# (git-ignored, downloaded once), then runs ONE hyperfine invocation per comparison (--warmup 3, --export-json)
# and prints a table of medians, ratios quire/peer, and the targets:
#   text   (quire inspect --text FILE  vs  pdftotext FILE -)   <= 0.55x on gnuplot.pdf, <= 0.70x on libtasn1.pdf
#   render (quire inspect --render 1 --dpi 150 -o OUT.png FILE  vs  pdftoppm -png -r 150 -f 1 -l 1 FILE PREFIX) <= 0.35x
# plus `quire inspect FILE` vs `pdfinfo FILE` and start-up (`quire --version` vs `pdfinfo -v`), which have no target.
#
# Environment: QUIRE_BIN=path skips the build and times that binary; HYPERFINE_ARGS adds options to every
# hyperfine call (e.g. "--min-runs 20"); COMPARE_ONLY=REGEX runs only the comparisons whose name matches
# (names: startup, info-libtasn1, info-gnuplot, text-libtasn1, text-gnuplot, text-hundred-pages, render-libtasn1,
# render-gnuplot); the table then also shows earlier results of the others, marked "(earlier run)".
# Exit status is 0 even when a target is missed (the table says so).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
work="$here/work"
results="$work/results"
out="$work/out"
mkdir -p "$results" "$out"

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

say() { printf '==> %s\n' "$*" >&2; }

# --- 1. Tools (only what is missing) -------------------------------------------------------------------------
apt_updated=0
apt_update_once() {
    if [ "$apt_updated" -eq 0 ]; then
        "${sudo_cmd[@]}" apt-get update -qq
        apt_updated=1
    fi
}
need=(hyperfine poppler-utils pkg-config libpoppler-glib-dev libcairo2-dev libpng-dev libglib2.0-dev)
missing=()
for package in "${need[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
    say "installing: ${missing[*]}"
    apt_update_once
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
command -v python3 >/dev/null || { echo "compare-poppler-utils.sh: python3 is needed to read hyperfine's JSON" >&2; exit 1; }

# --- 2. quire, release build with the Swift stdlib linked statically -------------------------------------------
if [ -n "${QUIRE_BIN:-}" ]; then
    quire="$QUIRE_BIN"
else
    say "building quire (release, the shipped flags of scripts/release-build.sh, scratch path .build-release)"
    # quire runs the PDF commands through the quire-pdf helper next to it: build both.
    "$repo/scripts/release-build.sh" --scratch-path "$repo/.build-release" quire quire-pdf
    quire="$("$repo/scripts/release-build.sh" --scratch-path "$repo/.build-release" --show-bin-path)/quire"
fi
[ -x "$quire" ] || { echo "compare-poppler-utils.sh: no quire binary at $quire" >&2; exit 1; }

# --- 3. Inputs ------------------------------------------------------------------------------------------------
# Unpacks a file from a Debian package into $work/PACKAGE (downloaded once) and prints its path.
from_deb() {
    local package="$1" inside="$2" dir="$work/$1"
    if [ ! -f "$dir$inside" ] && [ ! -f "$dir$inside.gz" ]; then
        say "fetching $package (apt-get download + dpkg -x into ${dir#"$repo"/})"
        mkdir -p "$dir"
        local deb
        deb="$(cd "$work" && ls "${package}"_*.deb 2>/dev/null | head -n 1 || true)"
        if [ -z "$deb" ]; then
            (cd "$work" && apt-get download "$package" >/dev/null 2>&1) \
                || { apt_update_once; (cd "$work" && apt-get download "$package" >/dev/null); }
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
hundred="$repo/Fixtures/hundred-pages.pdf"
for file in "$libtasn1" "$gnuplot" "$hundred"; do
    [ -s "$file" ] || { echo "compare-poppler-utils.sh: missing input $file" >&2; exit 1; }
done

# --- 4. Sanity: every command works before it is timed ----------------------------------------------------------
for file in "$libtasn1" "$gnuplot" "$hundred"; do
    quire_bytes=$("$quire" inspect --text "$file" | wc -c)
    peer_bytes=$(pdftotext "$file" - | wc -c)
    say "$(basename "$file"): $("$quire" inspect "$file" | sed -n 's/^Pages: *//p') pages, text $quire_bytes bytes (quire) vs $peer_bytes (pdftotext)"
done
"$quire" inspect --render 1 --dpi 150 -o "$out/check.png" "$libtasn1"
[ -s "$out/check.png" ] || { echo "compare-poppler-utils.sh: quire wrote no PNG" >&2; exit 1; }

# --- 5. hyperfine: one invocation per comparison ----------------------------------------------------------------
# The machine has 2 cores and quire's text extraction uses both: anything else running skews the ratios.
busy=$(python3 -c '
import time
def sample():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return sum(v), v[3] + v[4]
t0, i0 = sample(); time.sleep(2); t1, i1 = sample()
print(round(100 * (1 - (i1 - i0) / max(1, t1 - t0))))')
say "CPU busy before timing: ${busy}% of 2 cores (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
if [ "$busy" -gt 10 ]; then
    say "WARNING: other work is running; medians (and the 2-thread text ratios most) will be pessimistic"
fi

# -N runs the commands without a shell (no shell start-up to subtract); stdout goes to /dev/null (--output=null),
# so `quire inspect --text FILE` and `pdftotext FILE -` both write the whole text to /dev/null.
read -r -a extra <<<"${HYPERFINE_ARGS:-}"
if [ -z "${COMPARE_ONLY:-}" ]; then rm -f "$results"/*.json "$results"/summary.md; fi
touch "$results/.this-run-$$"   # results older than this come from an earlier run
trap 'rm -f "$results/.this-run-$$"' EXIT
compare() { # NAME QUIRE_COMMAND PEER_COMMAND
    local name="$1"
    if [ -n "${COMPARE_ONLY:-}" ] && ! [[ "$name" =~ $COMPARE_ONLY ]]; then return 0; fi
    say "hyperfine: $name"
    hyperfine -N --warmup 3 --output=null --style basic ${extra[@]+"${extra[@]}"} \
        --export-json "$results/$name.json" \
        --command-name quire "$2" --command-name peer "$3"
}

compare startup "$quire --version" "pdfinfo -v"
for pair in "libtasn1:$libtasn1" "gnuplot:$gnuplot"; do
    label="${pair%%:*}"
    file="${pair#*:}"
    compare "info-$label" "$quire inspect $file" "pdfinfo $file"
done
for pair in "libtasn1:$libtasn1" "gnuplot:$gnuplot" "hundred-pages:$hundred"; do
    label="${pair%%:*}"
    file="${pair#*:}"
    compare "text-$label" "$quire inspect --text $file" "pdftotext $file -"
done
for pair in "libtasn1:$libtasn1" "gnuplot:$gnuplot"; do
    label="${pair%%:*}"
    file="${pair#*:}"
    compare "render-$label" \
        "$quire inspect --render 1 --dpi 150 -o $out/quire-$label.png $file" \
        "pdftoppm -png -r 150 -f 1 -l 1 $file $out/pdftoppm-$label"
done

# --- 6. Table --------------------------------------------------------------------------------------------------
python3 - "$results" "$results/.this-run-$$" <<'PY'
import json, os, sys

results, marker = sys.argv[1], sys.argv[2]
started = os.path.getmtime(marker) if os.path.exists(marker) else 0
rows = [
    # file stem, what, input, quire command, peer command, target ratio (None: no target)
    ("startup", "start-up", "-", "quire --version", "pdfinfo -v", None),
    ("info-libtasn1", "info", "libtasn1.pdf", "quire inspect", "pdfinfo", None),
    ("info-gnuplot", "info", "gnuplot.pdf", "quire inspect", "pdfinfo", None),
    ("text-libtasn1", "text", "libtasn1.pdf", "quire inspect --text", "pdftotext", 0.70),
    ("text-gnuplot", "text", "gnuplot.pdf", "quire inspect --text", "pdftotext", 0.55),
    ("text-hundred-pages", "text", "hundred-pages.pdf", "quire inspect --text", "pdftotext", None),
    ("render-libtasn1", "render p1 150 dpi", "libtasn1.pdf", "quire inspect --render", "pdftoppm -png", 0.35),
    ("render-gnuplot", "render p1 150 dpi", "gnuplot.pdf", "quire inspect --render", "pdftoppm -png", 0.35),
]
header = ("what", "input", "quire ms", "peer", "peer ms", "ratio", "ratio of mins", "target", "result")
table = []
missed = 0
for stem, what, source, _, peer, target in rows:
    path = os.path.join(results, stem + ".json")
    if not os.path.exists(path):
        continue
    if os.path.getmtime(path) < started:
        source += " (earlier run)"
    with open(path) as handle:
        data = {entry["command"]: entry for entry in json.load(handle)["results"]}
    if "quire" not in data or "peer" not in data:
        print(f"{stem}: incomplete results in {path} (interrupted run?), skipped", file=sys.stderr)
        continue
    quire_ms = data["quire"]["median"] * 1000
    peer_ms = data["peer"]["median"] * 1000
    ratio = quire_ms / peer_ms
    ratio_min = data["quire"]["min"] / data["peer"]["min"]
    if target is None:
        verdict, goal = "-", "-"
    else:
        goal = f"<= {target:.2f}"
        verdict = "MET" if ratio <= target else "MISSED"
        missed += verdict == "MISSED"
    table.append((what, source, f"{quire_ms:.1f}", peer, f"{peer_ms:.1f}", f"{ratio:.2f}", f"{ratio_min:.2f}", goal, verdict))

widths = [max(len(str(row[i])) for row in [header] + table) for i in range(len(header))]
def line(row):
    return "| " + " | ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(row)) + " |"
text = [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(row) for row in table]
summary = "\n".join(text)
print()
print("Medians in ms; ratio = quire / peer; targets are judged on the ratio of medians.")
print(summary)
print()
print(f"{missed} target(s) missed." if missed else "All targets met.")
print(f"hyperfine JSON: {results}/")
with open(os.path.join(results, "summary.md"), "w") as handle:
    handle.write(summary + "\n")
PY
rm -f "$results/.this-run-$$"
