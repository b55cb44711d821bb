#!/usr/bin/env bash
# Installs hnefatafl.org's game server (`hnefatafl-server` of the crates.io package
# hnefatafl-copenhagen 6.4.1, with its `server` feature only) under target/, for
# tests/hnefatafl_org.rs, which plays our bot account against it on loopback.
#
# Prints the server's path as the last line of stdout; everything else goes to stderr.
# Idempotent and fast once installed; .ci/run calls it before the tests so that a failed
# build shows up as its own step (the test then says it was skipped, and why). Needs
# crates.io the first time, and some minutes of compiling.
set -euo pipefail
cd "$(dirname "$0")/.."
root="${TAFL_HNEFATAFL_ROOT:-target/hnefatafl-server}"
bin="$root/bin/hnefatafl-server"
mkdir -p "$root"
exec 9>"$root.lock"
flock 9
if [ ! -x "$bin" ]; then
    echo "installing hnefatafl-server 6.4.1 into $root (cargo install; a few minutes)" >&2
    cargo install hnefatafl-copenhagen --version 6.4.1 --no-default-features --features server \
        --bin hnefatafl-server --root "$root" --locked >&2
fi
echo "$(realpath "$bin")"
