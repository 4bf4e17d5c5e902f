#!/usr/bin/env bash
# Prepares the GPU benchmark (docs/performance.md, "GPU") on a machine that has hetc:
# exports the GPT-2 models without weights, plans them for one GPU and for an emulated
# heterogeneous cluster (`hetc plan`: the predicted step times), compiles the packages
# without weights (`hetc compile --no-weights`, bf16 when hetc has --precision) and
# writes everything the GPU machine needs into one folder of a few MiB: packages
# (programs only; bench/gpu/write_weights.py writes the weights there), plans,
# prepare.json and predictions.json. Then copy the folder to the GPU machine (into
# the repository's working tree) and run bench/gpu/run.sh there.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=$ROOT/build/bin
OUT=$ROOT/build-gpu-bench/packages
WORK=
CONFIGS=124m,350m
BATCH=8
SEQ=1024
SEED=0
LR=1e-3
PRECISION=auto
HETERO_CLUSTER=$ROOT/models/clusters/demo-box.yaml
HETERO_CONFIG=124m
LAYOUT=whole-batch
PY=${HETC_BENCH_PYTHON:-/usr/bin/python3}

usage() {
  cat <<EOF
usage: bench/gpu/prepare.sh [options]

  --bin DIR              folder with hetc (default build/bin)
  --out DIR              the folder to take to the GPU machine (default
                         build-gpu-bench/packages); replaced
  --work DIR             exported models (not needed there; default OUT.work)
  --configs LIST         models/gpt2.py configs, comma-separated (default 124m,350m)
  --batch B              global batch of every package (default 8; 16 fits too)
  --seq T                tokens per sample (default 1024)
  --seed S               initialization seed the weights are written with (default 0)
  --lr X                 AdamW learning rate (default 1e-3)
  --precision P          auto (bf16 when hetc compile has --precision, else f32 with a
                         warning), bf16 or f32 (default auto)
  --hetero-cluster FILE  cluster of the emulated heterogeneous plan (default
                         models/clusters/demo-box.yaml); none: no such package
  --hetero-config C      its model config (default 124m)
  --one-gpu-layout L     whole-batch: each single-GPU package runs the global batch as
                         one micro-batch, as PyTorch does (default); planned: the
                         plan hetc plan chose for one-h100 (its micro-batches), which
                         its prediction is for
  --python PY            Python with torch and onnx (default \$HETC_BENCH_PYTHON or
                         /usr/bin/python3)

Then, on the GPU machine, from the repository root with OUT copied there:
  bench/gpu/run.sh --packages OUT build
  bench/gpu/run.sh --packages OUT weights tokens
  bench/gpu/run.sh --packages OUT bench --models gpt2-124m
  ... (docs/performance.md, "GPU")
EOF
}

while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --configs) CONFIGS=$2; shift 2 ;;
    --batch) BATCH=$2; shift 2 ;;
    --seq) SEQ=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --lr) LR=$2; shift 2 ;;
    --precision) PRECISION=$2; shift 2 ;;
    --hetero-cluster) HETERO_CLUSTER=$2; shift 2 ;;
    --hetero-config) HETERO_CONFIG=$2; shift 2 ;;
    --one-gpu-layout) LAYOUT=$2; shift 2 ;;
    --python) PY=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "prepare.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done

say() { echo "prepare.sh: $*"; }
die() { echo "prepare.sh: error: $*" >&2; exit 1; }

HETC=$BIN/hetc
[ -x "$HETC" ] || die "no hetc in $BIN (build it: cmake --build build --target hetc, or pass --bin)"
"$PY" -c 'import torch, onnx' 2>/dev/null ||
  die "$PY cannot import torch and onnx (scripts/install-deps.sh installs them; or pass --python)"
case "$PRECISION" in auto|bf16|f32) ;; *) die "--precision must be auto, bf16 or f32" ;; esac
case "$LAYOUT" in whole-batch|planned) ;; *) die "--one-gpu-layout must be whole-batch or planned" ;; esac

# --precision exists once hetc compile has it; without it the packages are f32.
# hetc plan gets the same flag when it has it, so that it predicts that step.
PRECISION_FLAGS=()
PLAN_FLAGS=()
if [ "$PRECISION" != f32 ]; then
  if "$HETC" compile --help 2>&1 | grep -q -- '--precision'; then
    PRECISION=bf16
    PRECISION_FLAGS=(--precision bf16)
    if "$HETC" plan --help 2>&1 | grep -q -- '--precision'; then
      PLAN_FLAGS=(--precision bf16)
    else
      echo "prepare.sh: warning: hetc plan has no --precision; its predictions are for" \
           "its default precision" >&2
    fi
  else
    echo "prepare.sh: warning: this hetc compile has no --precision; the packages compute" \
         "in f32 (PyTorch still runs bf16 autocast; the table says so)" >&2
    PRECISION=f32
  fi
fi

OUT=$(mkdir -p "$OUT" && cd "$OUT" && pwd)
WORK=${WORK:-$OUT.work}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
# Replace what an earlier run left (packages of other configs would be stale).
rm -rf "$OUT"/*.hetpkg "$OUT"/plans "$OUT"/prepare.json "$OUT"/predictions.json
mkdir -p "$OUT/plans"

COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null || true)" ]; then
  COMMIT="$COMMIT+local-changes"
fi
say "hetc $COMMIT, precision $PRECISION, batch $BATCH x seq $SEQ, seed $SEED, out $OUT"

ONE_GPU_CLUSTERS=("$ROOT/models/clusters/one-h100.yaml" "$ROOT/models/clusters/one-h200.yaml")
MODELS=()
EXPORTED=" "   # configs exported by this run

export_shapes() {  # CONFIG -> path of the shapes-only export
  local config=$1 onnx=$WORK/gpt2-$1.onnx
  say "export gpt2-$config (shapes only, seq $SEQ)" >&2
  "$PY" "$ROOT/models/export.py" --family gpt2 --config "$config" --seq "$SEQ" --opset 17 \
    --seed "$SEED" --shapes-only --out "$onnx" >&2
  echo "$onnx"
}

plan() {  # NAME ONNX CLUSTER.yaml -> plans/NAME.CLUSTER.{txt,json}
  local name=$1 onnx=$2 cluster=$3 stem
  stem=$(basename "$cluster" .yaml)
  say "plan $name for $stem"
  "$HETC" plan "$onnx" --cluster "$cluster" --global-batch "$BATCH" --seq "$SEQ" \
    --optimizer adamw "${PLAN_FLAGS[@]}" -o "$OUT/plans/$name.$stem.json" \
    > "$OUT/plans/$name.$stem.txt" ||
    die "hetc plan $name for $stem failed (its output: $OUT/plans/$name.$stem.txt)"
  grep -m1 'predicted step' "$OUT/plans/$name.$stem.txt" | sed 's/^/  /'
}

compile() {  # NAME ONNX [CLUSTER.yaml]: the plan planned for that cluster, or one
             # device running the whole batch at once (checked against 80 GB)
  local name=$1 onnx=$2 cluster=${3:-} where
  local placement=(--device-memory 80GB)
  where="one GPU, the whole batch as one micro-batch"
  if [ -n "$cluster" ]; then
    where="the plan for $(basename "$cluster" .yaml)"
    placement=(--cluster "$cluster" --plan "$OUT/plans/$name.$(basename "$cluster" .yaml).json")
  fi
  say "compile $name: $where (--no-weights${PRECISION_FLAGS[*]:+ ${PRECISION_FLAGS[*]}})"
  "$HETC" compile "$onnx" -o "$OUT/$name.hetpkg" --no-weights --global-batch "$BATCH" \
    --seq "$SEQ" --optimizer adamw --lr "$LR" "${placement[@]}" "${PRECISION_FLAGS[@]}" \
    2> "$WORK/$name.compile.log" ||
    { cat "$WORK/$name.compile.log" >&2; die "hetc compile $name failed"; }
  grep -E 'rank [0-9]+:' "$WORK/$name.compile.log" | sed 's/^hetc compile: /  /'
}

IFS=, read -r -a CONFIG_LIST <<< "$CONFIGS"
for config in "${CONFIG_LIST[@]}"; do
  name=gpt2-$config
  onnx=$(export_shapes "$config")
  EXPORTED+="$config "
  for cluster in "${ONE_GPU_CLUSTERS[@]}"; do
    plan "$name" "$onnx" "$cluster"
  done
  if [ "$LAYOUT" = planned ]; then
    compile "$name" "$onnx" "${ONE_GPU_CLUSTERS[0]}"
  else
    compile "$name" "$onnx"
  fi
  MODELS+=(--model "$name:$config:single:one-h100:$LAYOUT")
done

if [ "$HETERO_CLUSTER" != none ]; then
  [ -f "$HETERO_CLUSTER" ] || die "no cluster file $HETERO_CLUSTER"
  stem=$(basename "$HETERO_CLUSTER" .yaml)
  name=gpt2-$HETERO_CONFIG-$stem
  onnx=$WORK/gpt2-$HETERO_CONFIG.onnx
  case "$EXPORTED" in *" $HETERO_CONFIG "*) ;; *) onnx=$(export_shapes "$HETERO_CONFIG") ;; esac
  plan "$name" "$onnx" "$HETERO_CLUSTER"
  compile "$name" "$onnx" "$HETERO_CLUSTER"
  MODELS+=(--model "$name:$HETERO_CONFIG:hetero:$stem:planned")
fi

VOCAB=$("$PY" -c "import sys; sys.path.insert(0, '$ROOT/models'); import gpt2; \
print(max(gpt2.CONFIGS[c].vocab_size for c in '$CONFIGS,$HETERO_CONFIG'.split(',')))")
"$PY" "$ROOT/bench/gpu/describe.py" "$OUT" --family gpt2 --seq "$SEQ" --global-batch "$BATCH" \
  --seed "$SEED" --lr "$LR" --precision "$PRECISION" --vocab "$VOCAB" \
  --hetc-commit "$COMMIT" "${MODELS[@]}"

BYTES=$(du -sb "$OUT" | cut -f1)
say "$OUT: $((BYTES / 1024)) KiB"
if [ "$BYTES" -gt $((60 * 1024 * 1024)) ]; then
  echo "prepare.sh: warning: $OUT is over 60 MiB; a copy of the working tree plus 64 MiB" \
       "may not hold it" >&2
fi
REL=$OUT
case "$OUT" in "$ROOT"/*) REL=${OUT#"$ROOT"/} ;; esac
cat <<EOF

Next, on the GPU machine, from the repository root, with $REL copied to the same place:
  bench/gpu/run.sh --packages $REL build              # hetrun, -DHETC_BUILD_COMPILER=OFF
  bench/gpu/run.sh --packages $REL weights tokens     # write_weights.py, make_tokens.py
EOF
for m in "${MODELS[@]}"; do
  [ "$m" = --model ] && continue
  echo "  bench/gpu/run.sh --packages $REL bench --models ${m%%:*}"
done
echo "  bench/gpu/run.sh --packages $REL report             # the whole table again"
