#!/usr/bin/env bash
# train-plan.sh MODEL DIR OPTIMIZER NAME RANKS [hetc compile options...]
#
# Compiles MODEL for batch 8 x 16 tokens with OPTIMIZER and the given options
# (a plan of RANKS ranks; "auto": as many as the compiled package has), trains 5 steps on DIR/tokens.bin with ranks as
# threads and again under mpirun (one process per rank), and compares both
# runs with the single-device run DIR/single-OPTIMIZER (made by NAME =
# single, RANKS = 1).
set -euo pipefail
model=$1 dir=$2 optimizer=$3 name=$4 ranks=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
models=$(cd "$here/../../../models" && pwd)
python=/usr/bin/python3

case $optimizer in
  sgd) update=(--optimizer sgd --lr 0.05)
       tolerance=(--loss-rtol 1e-5 --param-rtol 1e-5 --param-atol 1e-3) ;;
  adamw) update=(--optimizer adamw --lr 1e-3 --weight-decay 0.1 --clip-norm 1.0)
         tolerance=(--loss-rtol 1e-5 --param-rtol 1e-3 --param-atol 5e-2
                    --state-rtol 1e-2 --state-atol 1e-5) ;;
esac

stem=$(basename "$model" .onnx)
run=$dir/$stem-$name-$optimizer
hetc compile "$model" -o "$run.hetpkg" --global-batch 8 --seq 16 "${update[@]}" "$@"
hetrun "$run.hetpkg" --data "$dir/tokens.bin" --steps 5 \
  --metrics "$run.jsonl" --save "$run.run"
if [ "$ranks" = auto ]; then
  ranks=$(hetc inspect "$run.hetpkg" | sed -n 's/^ranks: //p')
fi
[ "$name" = single ] && exit 0

reference=$dir/$stem-single-$optimizer
compare() {
  "$python" "$models/compare_runs.py" --reference "$reference.run" \
    --reference-metrics "$reference.jsonl" --candidate "$1.run" \
    --metrics "$1.jsonl" "${tolerance[@]}"
}
compare "$run"

mpi=$run-mpi
"$here/../../runtime/comm/mpirun.sh" mpiexec "$ranks" "$(command -v hetrun)" "$run.hetpkg" \
  --data "$dir/tokens.bin" --steps 5 --metrics "$mpi.jsonl" --save "$mpi.run"
compare "$mpi"
