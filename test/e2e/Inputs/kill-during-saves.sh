#!/usr/bin/env bash
# kill-during-saves.sh PACKAGE TOKENS DIR ROUNDS
#
# Starts `hetrun --save DIR --save-every 1` ROUNDS times and kills it with
# SIGKILL at a random moment of its saves; after every kill the newest
# checkpoint DIR/latest names must be complete: a run resumes from it.
set -euo pipefail
package=$1 tokens=$2 dir=$3 rounds=$4
resumed=0
for ((round = 0; round < rounds; ++round)); do
  before=$(ls -A "$dir" 2> /dev/null || true)
  hetrun "$package" --data "$tokens" --steps 100000 --threads 1 \
    --save "$dir" --save-every 1 --keep 3 > /dev/null 2>&1 &
  pid=$!
  # The random moment counts from the run's first save (DIR changes): a
  # loaded machine can take seconds to get there.
  for ((wait = 0; wait < 600; ++wait)); do
    [ "$(ls -A "$dir" 2> /dev/null || true)" != "$before" ] && break
    sleep 0.1
  done
  sleep "0.$((RANDOM % 10))$((RANDOM % 10))"
  kill -9 "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  [ -f "$dir/latest" ] || continue
  step=$(sed -n 's/^step-//p' "$dir/latest")
  hetrun "$package" --data "$tokens" --steps "$((step + 1))" --threads 1 \
    --resume "$dir" > /dev/null 2> "$dir.err" ||
    { echo "round $round: cannot resume from $(cat "$dir/latest")"; cat "$dir.err"; exit 1; }
  resumed=$((resumed + 1))
done
echo "resumed after $resumed of $rounds kills"
