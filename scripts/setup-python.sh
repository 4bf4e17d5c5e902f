#!/usr/bin/env bash
# Creates (once) and updates (when scripts/requirements-py.txt changes) the
# Python environment the tests and exports use: torch 2.x, transformers,
# onnx, onnxruntime, onnxscript, safetensors. It lives outside the build
# folder, in HETC_PYENV (default ~/.cache/hetc/pyenv), because torch's wheels
# bring several GB of CUDA libraries: installed once per machine, never per
# build or test. Prints nothing when it is up to date.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
requirements="$here/requirements-py.txt"
env_dir="${HETC_PYENV:-${XDG_CACHE_HOME:-$HOME/.cache}/hetc/pyenv}"
stamp="$env_dir/.requirements"

if [ -f "$stamp" ] && cmp -s "$stamp" "$requirements"; then
  exit 0
fi
if [ ! -x "$env_dir/bin/python" ]; then
  echo "python: creating $env_dir (torch, transformers, onnxruntime: several GB, once)"
  mkdir -p "$(dirname "$env_dir")"
  /usr/bin/python3 -m venv "$env_dir"
fi
echo "python: installing $requirements into $env_dir"
"$env_dir/bin/python" -m pip install --quiet --disable-pip-version-check \
  -r "$requirements"
cp "$requirements" "$stamp"
