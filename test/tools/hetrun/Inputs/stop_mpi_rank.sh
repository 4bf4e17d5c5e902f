#!/usr/bin/env bash
# stop_mpi_rank.sh MPIRUN NP RANK SECONDS HETRUN ARGS...
# Runs `MPIRUN NP HETRUN ARGS...` (hetrun under mpirun, NP processes), sends
# SIGSTOP to the process of rank RANK once it has run SECONDS, and prints
# the job's output, its exit status and how long the others took to end the
# job after the stop ("ended N s after the stop"). A job still running 60 s
# after the stop is killed ("still running").
set -uo pipefail
mpirun=$1 np=$2 rank=$3 seconds=$4
shift 4
out=$(mktemp)
$mpirun "$np" "$@" > "$out" 2>&1 &
job=$!
pid=""
for _ in $(seq 200); do
  for candidate in $(pgrep -f "hetrun .*$(basename "$2")" || true); do
    if { tr '\0' '\n' < "/proc/$candidate/environ"; } 2>/dev/null |
        grep -qx "OMPI_COMM_WORLD_RANK=$rank"; then
      pid=$candidate
    fi
  done
  [ -n "$pid" ] && break
  sleep 0.05
done
[ -n "$pid" ] || { echo "no process of rank $rank"; kill "$job"; exit 1; }
sleep "$seconds"
kill -STOP "$pid"
stopped=$(date +%s.%N)
for _ in $(seq 600); do
  kill -0 "$job" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$job" 2>/dev/null; then
  echo "still running"
  kill -KILL "$pid"; kill "$job"
fi
wait "$job"
status=$?
kill -KILL "$pid" 2>/dev/null
cat "$out"
echo "exit status $status"
awk -v a="$stopped" -v b="$(date +%s.%N)" 'BEGIN { printf "ended %d s after the stop\n", b - a }'
rm -f "$out"
