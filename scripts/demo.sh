#!/usr/bin/env bash
# The README demo: compile the tiny GPT-2 fixture for an example
# heterogeneous machine (models/clusters/demo-box.yaml: 2x L4, an A6000 and a
# P40) with a hand-written uneven plan, show the layout the compiler made,
# and train it on the CPU backend with every rank as a thread.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/bin"
model="$root/models/fixtures/gpt2-tiny-op17.onnx"
cluster="$root/models/clusters/demo-box.yaml"
plan="$root/models/plans/demo-box-gpt2-tiny.json"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== the model, specialized to 8 x 16 tokens and fused (op counts)"
"$bin/hetc" import "$model" --batch 8 --seq 16 --elide-weights -o "$work/gpt2.mlir"
grep -oE '(hetg|ml_program)\.[a-z_]+' "$work/gpt2.mlir" | grep -vx hetg.name |
  sort | uniq -c | sort -rn

echo
echo "== the cluster ($cluster)"
grep -v '^#' "$cluster" | sed '/^$/d'
echo
echo "== the plan ($plan): 3 uneven stages, 4 ranks"
echo "   stage 0 (embeddings) on the P40; stage 1 (both layers) on the two L4s,"
echo "   batch split 5:3 with micro-batches of 5 and 1, state sharded 0.6/0.4;"
echo "   stage 2 (final norm, LM head tied to the embedding, loss) on the A6000"

echo
echo "== hetc compile: loss, autodiff, stages, schedule, AdamW, memory plan"
"$bin/hetc" compile "$model" -o "$work/gpt2.hetpkg" --global-batch 8 --seq 16 \
  --optimizer adamw --lr 3e-3 --plan "$plan" \
  --device-memory "box0/L4:0=24GB,box0/L4:1=24GB,box0/A6000:0=48GB,box0/P40:0=24GB"
"$bin/hetc" inspect "$work/gpt2.hetpkg" | grep -E '^(package|model|optimizer|ranks|rank [0-9])|placement|communication'

echo
echo "== hetrun: 60 steps on a small token file, 4 ranks as threads (the loss falls)"
/usr/bin/python3 "$root/models/make_tokens.py" "$work/tokens.bin" --tokens 20000 --vocab 256
"$bin/hetrun" "$work/gpt2.hetpkg" --data "$work/tokens.bin" --steps 60 --threads 1
