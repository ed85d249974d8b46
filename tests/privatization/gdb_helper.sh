#!/bin/sh
# The gdb helper shipped with mpcrt prints the current rank's copy of a privatized variable, where plain
# `print` shows the master copy. Usage: gdb_helper.sh BUILD_DIR SOURCE_DIR
set -u
build=$1 src=$2
command -v gdb >/dev/null || { echo "skipped: gdb is not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/prog.c" <<'C'
#include <mpi.h>
int counter = 5;
__thread int per_thread = 7;
void stop_here(void) {}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    counter = 4242;
    per_thread = 99;
    stop_here();
    MPI_Finalize();
    return 0;
}
C
"$build/bin/mpcc" -fmpc-privatize -O0 -g "$dir/prog.c" -o "$dir/prog" || exit 1
MPCRT_RANKS_PER_PROC=1 gdb -batch -nx -ex "source $src/gcc-plugin/mpcrt-priv-gdb.py" -ex "break stop_here" -ex run \
    -ex "print counter" -ex 'print $priv(counter)' -ex 'print $privult(per_thread)' -ex "info mpcrt" \
    "$dir/prog" >"$dir/out" 2>&1
cat "$dir/out" | grep -E '^\$|__mpc_'
grep -q '^\$1 = 5$' "$dir/out" || { echo "FAIL: plain print should show the master copy (5)"; exit 1; }
grep -q '^\$2 = 4242$' "$dir/out" || { echo "FAIL: \$priv(counter) should show the rank's copy (4242)"; exit 1; }
grep -q '^\$3 = 99$' "$dir/out" || { echo "FAIL: \$privult(per_thread) should show the thread's copy (99)"; exit 1; }
echo PASS
