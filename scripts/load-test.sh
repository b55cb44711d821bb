#!/usr/bin/env bash
# A bounded load test of `tafl serve` on loopback: wrk (Debian's) keeps CONNECTIONS clients
# asking for level moves (levels 1-5, a few Brandubh games, scripts/load/moves.lua) for
# SECONDS seconds, then stops by itself. Prints wrk's throughput and latency, the answers by
# status (the 503 share), the server's peak memory and its metrics. Speed is reported, never
# asserted. Usage: scripts/load-test.sh [SECONDS] [CONNECTIONS] [-- tafl serve options...]
# TAFL=path/to/tafl uses that binary instead of building target/release/tafl. Clients wait the
# Retry-After of a 503 before their next request; BACKOFF=0 makes them send again at once.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
connections=${2:-64}
shift $(( $# >= 2 ? 2 : $# ))
[ "${1:-}" = "--" ] && shift
if ! command -v wrk >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >&2
    else
        echo "error: the load test needs wrk (Debian: apt-get install wrk)" >&2
        exit 1
    fi
fi
if [ -z "${TAFL:-}" ]; then
    cargo build --release --quiet
    TAFL=target/release/tafl
fi
out=target/load
mkdir -p "$out"
"$TAFL" serve --bind 127.0.0.1:0 "$@" >"$out/server.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    grep -q "listening on" "$out/server.log" && break
    sleep 0.1
done
url=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$out/server.log")
[ -n "$url" ] || { cat "$out/server.log"; exit 1; }
head -1 "$out/server.log"
echo "wrk: $connections connections for ${seconds}s, 2 threads, POST /api/move (levels 1-5, brandubh)"
backoff=()
[ "${BACKOFF:-1}" = 0 ] && backoff=(-- no-backoff)
wrk -t2 -c"$connections" -d"${seconds}s" --timeout 60s --latency -s scripts/load/moves.lua "$url" "${backoff[@]}" | tee "$out/wrk.txt"
# The server must still answer, and have stayed within its bounds.
curl -fsS "$url/health" >/dev/null || { echo "error: the server stopped answering" >&2; exit 1; }
echo "peak memory of tafl serve: $(awk '/VmHWM/ {printf "%.0f MiB", $2/1024}' /proc/$pid/status) (VmHWM)"
curl -fsS "$url/metrics" >"$out/metrics.txt"
grep -E '^tafl_(searches_rejected|searches_expired|search_threads|search_queue_capacity)' "$out/metrics.txt"
grep -E '^tafl_http_requests_total\{route="/api/move"' "$out/metrics.txt"
