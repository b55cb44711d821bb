#!/usr/bin/env bash
# Makes Ray (pinned in ray/requirements.txt) available to the distributed-training driver
# (ray/driver.py) and its test (tests/ray_driver.rs), in a virtual environment under target/ so
# that neither the system Python nor other projects are touched.
#
# Prints the environment's python as the last line of stdout; everything else goes to stderr.
# Idempotent and fast once installed; .ci/run calls it before the tests. Needs PyPI (pip)
# access the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${TAFL_RAY_VENV:-target/ray-venv}"
py="$venv/bin/python"
mkdir -p "$(dirname "$venv")"

ready() { [ -x "$py" ] && [ -x "$venv/bin/ray" ] && "$py" -c 'import ray' 2>/dev/null; }

# Tests run in parallel: one installer at a time, the others wait and reuse its result.
exec 9>"$venv.lock"
flock 9
if ready; then
    echo "$py"
    exit 0
fi

python=$(command -v python3 || true)
if [ -z "$python" ] || ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "error: python3 with venv and ensurepip is needed (Debian: apt-get install python3-venv)" >&2
    exit 1
fi

rm -rf "$venv"
"$python" -m venv "$venv" >&2
"$py" -m pip install --quiet --disable-pip-version-check -r ray/requirements.txt >&2
if ! ready; then
    echo "error: ray still cannot be imported by $py" >&2
    exit 1
fi
echo "$py"
