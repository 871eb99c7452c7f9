# Shared by the package and install checks (scripts/check-install.sh, check-deb.sh, check-systemd.sh), sourced:
# `check NAME COMMAND…` runs COMMAND, prints `ok: NAME` or `FAILED: NAME` with the first 40 lines of its output,
# and counts it; `check_summary` prints `N passed, N failed` and fails when one did.
passed=0
failed=0

check() {
    local name="$1"
    shift
    local output
    if output="$("$@" 2>&1)"; then
        passed=$((passed + 1))
        echo "ok: $name"
    else
        failed=$((failed + 1))
        echo "FAILED: $name"
        printf '%s\n' "$output" | sed 's/^/    /' | head -40
    fi
}

check_summary() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}
