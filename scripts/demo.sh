#!/usr/bin/env bash
# The README demo: import the tiny GPT-2 fixture, specialize it to a batch and
# sequence length, fuse it, and show what the compiler made of it.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
hetc="$build/bin/hetc"
model="$root/models/fixtures/gpt2-tiny-op17.onnx"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== hetc import $model --batch 4 --seq 16"
"$hetc" import "$model" --batch 4 --seq 16 --elide-weights -o "$out/gpt2.mlir"

echo "== ops in the specialized, fused graph"
grep -oE '(hetg|ml_program)\.[a-z_]+' "$out/gpt2.mlir" | grep -vx hetg.name | sort | uniq -c | sort -rn

echo "== the first attention block"
grep -m1 -B2 -A1 'hetg.attention' "$out/gpt2.mlir"
