#!/usr/bin/env bash
# The web page's browser tests (test_web.py): Debian's headless Chromium and chromedriver, driven by Selenium from
# PyPI (in a private virtual environment under .build/), against real `quire serve` processes (debug build).
# `make test` runs it after the Swift tests, having installed chromium and chromium-driver; where Chromium is not
# installed (and could not be), it says so and skips (exit 0). Arguments select tests by name.
#
# No network beyond loopback and the package index: Selenium's manager is told to stay offline, and the browser
# and driver are the system's. The run is bounded: BROWSER_TEST_TIMEOUT seconds (default 240).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
say() { printf '==> %s\n' "$*" >&2; }

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    say "SKIPPED: the browser tests need Debian's chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver), which are not installed here"
    exit 0
fi

venv=".build/browser-venv"
if ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
    say "installing selenium from PyPI into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'selenium>=4.20,<5'
fi

build_log="$(mktemp)"
swift build >"$build_log" 2>&1 || { cat "$build_log" >&2; rm -f "$build_log"; exit 1; }
rm -f "$build_log"

export SE_OFFLINE=true SE_AVOID_STATS=true
exec timeout --kill-after=10 "${BROWSER_TEST_TIMEOUT:-240}" "$venv/bin/python" -u Tests/browser/test_web.py "$@"
