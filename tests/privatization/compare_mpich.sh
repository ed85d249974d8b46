#!/bin/sh
# The unmodified global-heavy program examples/global_solver.c must print the same thing with 64 ranks
# as threads of one process (privatized) as with one rank per process (MPICH's mpiexec, 64 processes).
# Usage: compare_mpich.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$2
command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null ||
    { echo "skipped: MPICH (mpicc.mpich, mpiexec.mpich) is not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$build/bin/mpcc" -fmpc-privatize -O2 "$src/examples/global_solver.c" -o "$dir/threads" -lm || exit 1
mpicc.mpich -O2 "$src/examples/global_solver.c" -o "$dir/processes" -lm || exit 1
"$build/bin/mpcrun" -n 64 "$dir/threads" | sort -n -k2 >"$dir/threads.txt" || { echo "FAIL: thread-mode run"; exit 1; }
mpiexec.mpich -n 64 "$dir/processes" | sort -n -k2 >"$dir/processes.txt" || { echo "FAIL: MPICH run"; exit 1; }
[ "$(wc -l <"$dir/processes.txt")" -eq 64 ] || { echo "FAIL: MPICH printed no 64 lines"; exit 1; }
if ! diff "$dir/threads.txt" "$dir/processes.txt"; then
    echo "FAIL: thread mode (64 ranks, privatized) differs from one rank per process"
    exit 1
fi
echo "PASS: 64 ranks as threads print exactly what 64 processes print"
