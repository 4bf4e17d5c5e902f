#!/bin/sh
# Regenerates the committed tiny ONNX fixtures under models/fixtures/ (or under $1).
# Deterministic: running it twice gives identical bytes (check with `make -C models check`).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-"$HERE/fixtures"}
PY=${PYTHON:-/usr/bin/python3}
SEQ=16

export_one() {  # export_one OUT_PATH ARGS...  (a --config in ARGS overrides tiny: argparse keeps the last)
    out=$1; shift
    "$PY" "$HERE/export.py" --config tiny --seq "$SEQ" --seed 0 --out "$out" "$@"
}

mkdir -p "$OUT" "$OUT/gpt2-tiny-ext"
export_one "$OUT/gpt2-tiny-op14.onnx"      --family gpt2  --opset 14
export_one "$OUT/gpt2-tiny-op17.onnx"      --family gpt2  --opset 17
export_one "$OUT/gpt2-tiny-tanh-op17.onnx" --family gpt2  --opset 17 --gelu tanh
export_one "$OUT/llama-tiny-op14.onnx"     --family llama --opset 14
export_one "$OUT/llama-tiny-op17.onnx"     --family llama --opset 17
export_one "$OUT/bert-tiny-op14.onnx"      --family bert  --opset 14
export_one "$OUT/bert-tiny-op17.onnx"      --family bert  --opset 17
export_one "$OUT/gpt2-tiny-ext/model.onnx" --family gpt2  --opset 17 --external-data
export_one "$OUT/llama-tiny-dynseq-op17.onnx" --family llama --opset 17 --dynamic-seq
# 7 narrow blocks (config deep): pipeline splits with uneven layer counts per stage.
export_one "$OUT/llama-deep-op17.onnx"     --family llama --opset 17 --config deep
