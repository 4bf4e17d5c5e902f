#!/usr/bin/env bash
# signal_mpi_rank.sh MPIRUN NP RANK SECONDS SIGNAL HETRUN ARGS...
# Runs `MPIRUN NP HETRUN ARGS...` (hetrun under mpirun, NP processes), sends
# SIGNAL (STOP, KILL, ...) to the process of rank RANK once it has trained
# for SECONDS, and prints the job's output, its exit status and how long the
# others took to end the job after the signal ("ended N s after the
# signal"). A job still running 60 s after the signal is killed ("still
# running").
set -uo pipefail
mpirun=$1 np=$2 rank=$3 seconds=$4 signal=$5
shift 5
out=$(mktemp)
$mpirun "$np" "$@" > "$out" 2>&1 &
job=$!
pid=""
for _ in $(seq 200); do
  # The package's full path: tests running side by side use one name.
  for candidate in $(pgrep -f "hetrun .*$2" || true); do
    if { tr '\0' '\n' < "/proc/$candidate/environ"; } 2>/dev/null |
        grep -qx "OMPI_COMM_WORLD_RANK=$rank"; then
      pid=$candidate
    fi
  done
  [ -n "$pid" ] && break
  sleep 0.05
done
[ -n "$pid" ] || { echo "no process of rank $rank"; kill "$job"; exit 1; }
# SECONDS count from the start of training (the "data ..." line comes once
# every process is set up): a loaded machine may take seconds to start MPI.
for _ in $(seq 600); do
  grep -q "^hetrun: data " "$out" && break
  sleep 0.1
done
sleep "$seconds"
kill -"$signal" "$pid"
signalled=$(date +%s.%N)
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
awk -v a="$signalled" -v b="$(date +%s.%N)" 'BEGIN { printf "ended %d s after the signal\n", b - a }'
rm -f "$out"
