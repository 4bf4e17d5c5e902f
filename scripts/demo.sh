#!/usr/bin/env bash
# The README demo: compile the tiny GPT-2 fixture into a training package and
# train it on the CPU backend, then show what the compiler made of the model.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/bin"
model="$root/models/fixtures/gpt2-tiny-op17.onnx"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== the model, specialized to 8 x 16 tokens and fused (op counts)"
"$bin/hetc" import "$model" --batch 8 --seq 16 --elide-weights -o "$work/gpt2.mlir"
grep -oE '(hetg|ml_program)\.[a-z_]+' "$work/gpt2.mlir" | grep -vx hetg.name |
  sort | uniq -c | sort -rn

echo
echo "== hetc compile: loss, autodiff, AdamW, memory plan, package"
"$bin/hetc" compile "$model" -o "$work/gpt2.hetpkg" --global-batch 8 --seq 16 \
  --optimizer adamw --lr 3e-3
"$bin/hetc" inspect "$work/gpt2.hetpkg" | head -n 20

echo
echo "== hetrun: 60 steps on a small token file (the loss falls)"
/usr/bin/python3 "$root/models/make_tokens.py" "$work/tokens.bin" --tokens 20000 --vocab 256
"$bin/hetrun" "$work/gpt2.hetpkg" --data "$work/tokens.bin" --steps 60 --threads 1
