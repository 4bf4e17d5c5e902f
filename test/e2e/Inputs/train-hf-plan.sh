#!/usr/bin/env bash
# train-hf-plan.sh MODEL DIR
#
# MODEL's one-device SGD run, then the 3-stage uneven plan uneven_plan.py
# writes for its segment count, compared with it (train-plan.sh: ranks as
# threads and under mpirun).
set -euo pipefail
model=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
plan=$dir/$(basename "$model" .onnx).plan.json
hetc profile "$model" --seq 16 --json > "$plan.profile"
/usr/bin/python3 "$here/uneven_plan.py" "$plan.profile" "$plan"
"$here/train-plan.sh" "$model" "$dir" sgd single 1 2> /dev/null
"$here/train-plan.sh" "$model" "$dir" sgd uneven auto --plan "$plan" 2> /dev/null
