#!/bin/sh
# hetrun runs the three-rank pipeline package (PipelineModel.h) as threads of
# one process and as three MPI processes: the same losses and the same
# checkpoint, with rank 0 alone reporting; a world of the wrong size fails.
#
# usage: hetrun-mpi.sh WRITER HETRUN MPIEXEC DIR
set -eu
writer=$1 hetrun=$2 mpiexec=$3 dir=$4
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$dir" && mkdir -p "$dir"
"$writer" "$dir"
package="$dir/pipeline.hetpkg"
run="--data $dir/tokens.bin --steps 3"

"$hetrun" "$package" $run --metrics "$dir/threads.jsonl" \
  --save "$dir/threads.ckpt" > "$dir/threads.out" 2> "$dir/threads.err" ||
  fail "hetrun with threads: $(cat "$dir/threads.err")"
"$mpiexec" -np 3 "$hetrun" "$package" $run --metrics "$dir/mpi.jsonl" \
  --save "$dir/mpi.ckpt" > "$dir/mpi.out" 2> "$dir/mpi.err" ||
  fail "hetrun under $mpiexec: $(cat "$dir/mpi.err")"

losses() { grep -o '"loss": [^,]*' "$1"; }
[ "$(losses "$dir/threads.jsonl" | wc -l)" -eq 3 ] || fail "3 steps expected"
[ "$(losses "$dir/threads.jsonl")" = "$(losses "$dir/mpi.jsonl")" ] ||
  fail "losses differ: $(losses "$dir/threads.jsonl") vs $(losses "$dir/mpi.jsonl")"
for file in params.safetensors optimizer.safetensors; do
  cmp "$dir/threads.ckpt/$file" "$dir/mpi.ckpt/$file" || fail "$file differs"
done
[ "$(grep -c '^step ' "$dir/mpi.out")" -eq 3 ] || fail "rank 0 alone reports"
grep -q 'hetrun: rank 2: stage 1, replica 1, device cpu2, samples \[1, 4)' \
  "$dir/mpi.err" || fail "no layout line for rank 2"
grep -q 'one process per rank' "$dir/mpi.err" || fail "no MPI note"

if "$mpiexec" -np 2 "$hetrun" "$package" $run > "$dir/wrong.out" \
  2> "$dir/wrong.err"; then
  fail "2 processes for 3 ranks ran"
fi
grep -q 'the job has 2 processes but the package has 3 ranks' \
  "$dir/wrong.err" || fail "no world size error: $(cat "$dir/wrong.err")"
echo "PASS"
