#!/usr/bin/env bash
# stop-by-signal.sh PACKAGE TOKENS DIR
#
# SIGTERM during a run: hetrun saves the checkpoint of the step it is at
# into DIR (a --save-every series), exits with status 3, and a run resumes
# from it. Two SIGINTs end the process at once with status 130.
set -uo pipefail
package=$1 tokens=$2 dir=$3
hetrun "$package" --data "$tokens" --steps 1000000 --threads 1 \
  --save "$dir" --save-every 100000 > /dev/null 2> "$dir.err" &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"
echo "SIGTERM: exit status $?"
grep 'stopping after step' "$dir.err" | sed 's/[0-9][0-9]*/S/'
step=$(sed -n 's/^step-//p' "$dir/latest")
hetrun "$package" --data "$tokens" --steps "$((step + 1))" --threads 1 \
  --resume "$dir" 2>&1 | grep -c "^step $((step + 1))/" | sed 's/^/resumed steps: /'

hetrun "$package" --data "$tokens" --steps 1000000 --threads 1 > /dev/null 2>&1 &
pid=$!
sleep 1
kill -INT "$pid"
kill -INT "$pid"
wait "$pid"
echo "SIGINT twice: exit status $?"
