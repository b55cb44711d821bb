#!/usr/bin/env bash
# Makes the Python packages that check `tafl export`'s model.onnx available: onnxruntime (a
# runtime independent of burn), onnx (its model checker) and numpy, in a virtual environment
# under target/ so that neither the system Python nor other projects are touched.
#
# Prints the environment's python as the last line of stdout; everything else goes to stderr.
# Idempotent and fast once installed; tests/export.rs calls it, and .ci/run calls it before the
# tests so that a failed install shows up as its own step. Needs PyPI (pip) access the first
# time; on Debian without python3-venv it installs that with apt-get when run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${TAFL_ONNX_VENV:-target/onnx-venv}"
py="$venv/bin/python"
mkdir -p "$(dirname "$venv")"

ready() { [ -x "$py" ] && "$py" -c 'import onnxruntime, onnx, numpy' 2>/dev/null; }

# Tests run in parallel: one installer at a time, the others wait and reuse its result.
exec 9>"$venv.lock"
flock 9
if ready; then
    echo "$py"
    exit 0
fi

python=$(command -v python3 || true)
if [ -z "$python" ] || ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing python3-venv with apt-get" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >&2
        python=$(command -v python3)
    else
        echo "error: python3 with venv and ensurepip is needed (Debian: apt-get install python3-venv)" >&2
        exit 1
    fi
fi

rm -rf "$venv"
"$python" -m venv "$venv" >&2
"$py" -m pip install --quiet --disable-pip-version-check "onnxruntime>=1.17" "onnx>=1.15" numpy >&2
if ! ready; then
    echo "error: onnxruntime, onnx or numpy still cannot be imported by $py" >&2
    exit 1
fi
echo "$py"
