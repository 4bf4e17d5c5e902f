#!/usr/bin/env bash
# stop-by-signal.sh PACKAGE TOKENS DIR
#
# SIGTERM during a run: hetrun saves the checkpoint of the step it is at
# into DIR (a --save-every series), exits with status 3, and a run resumes
# from it. SIGINT stops the same way. (A second SIGINT before the step
# ends exits at once with 130; two signals sent together may merge into
# one, so that is not checked here.)
set -uo pipefail
package=$1 tokens=$2 dir=$3

# Waits until the run has finished a step (its signal handlers are set).
wait_for_steps() {
  for _ in $(seq 600); do
    grep -q '^step ' "$1" 2> /dev/null && return
    sleep 0.1
  done
}

hetrun "$package" --data "$tokens" --steps 1000000 --threads 1 \
  --save "$dir" --save-every 100000 > "$dir.out" 2> "$dir.err" &
pid=$!
wait_for_steps "$dir.out"
kill -TERM "$pid"
wait "$pid"
echo "SIGTERM: exit status $?"
grep 'stopping after step' "$dir.err" | sed 's/[0-9][0-9]*/S/'
step=$(sed -n 's/^step-//p' "$dir/latest")
hetrun "$package" --data "$tokens" --steps "$((step + 1))" --threads 1 \
  --resume "$dir" 2>&1 | grep -c "^step $((step + 1))/" | sed 's/^/resumed steps: /'

hetrun "$package" --data "$tokens" --steps 1000000 --threads 1 > "$dir.int.out" 2>&1 &
pid=$!
wait_for_steps "$dir.int.out"
kill -INT "$pid"
wait "$pid"
echo "SIGINT: exit status $?"
