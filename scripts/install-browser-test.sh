#!/usr/bin/env bash
# Makes what tests/browser.rs needs available: Debian's headless Chromium, Node.js with npm,
# and the pinned playwright-core from tests/browser/package-lock.json (`npm ci`, into
# tests/browser/node_modules). Installs with apt-get when run as root on Debian; elsewhere it
# says what to install. Idempotent and fast once installed; .ci/run calls it before the tests,
# and tests/browser.rs calls it too.
#
# Prints the Chromium binary as the last line of stdout; everything else goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=tests/browser
mkdir -p target

# Tests run in parallel: one installer at a time.
exec 9>target/browser-install.lock
flock 9

find_chromium() { command -v chromium || command -v chromium-browser || true; }

apt_install() {
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing $* with apt-get" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
    else
        echo "error: the browser test needs $*; install them (Debian: sudo apt-get install $*)" >&2
        exit 1
    fi
}

missing=()
[ -n "$(find_chromium)" ] || missing+=(chromium)
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
    apt_install "${missing[@]}"
fi
chromium=$(find_chromium)
if [ -z "$chromium" ]; then
    echo "error: no chromium binary after installing it" >&2
    exit 1
fi

# playwright-core as pinned by the lock file; `npm ci` only when node_modules does not match it.
stamp="$dir/node_modules/.tafl-lock"
if ! [ -f "$stamp" ] || ! cmp -s "$dir/package-lock.json" "$stamp" || ! [ -d "$dir/node_modules/playwright-core" ]; then
    echo "installing playwright-core with npm ci in $dir" >&2
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2) || {
        echo "error: npm ci failed in $dir (it needs the npm registry)" >&2
        exit 1
    }
    cp "$dir/package-lock.json" "$stamp"
fi
echo "$chromium"
