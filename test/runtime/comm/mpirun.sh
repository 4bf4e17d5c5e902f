#!/bin/sh
# Usage: mpirun.sh MPIEXEC NP PROGRAM [ARGS...]
# Runs PROGRAM as NP processes of one MPI job on this machine, more processes
# than cores allowed. Open MPI refuses to run as root unless asked to, and
# tests run as whoever runs ctest (root in containers).
mpiexec=$1
np=$2
shift 2
if [ "$(id -u)" -eq 0 ]; then
  set -- --allow-run-as-root "$@"
fi
exec "$mpiexec" -np "$np" --oversubscribe "$@"
