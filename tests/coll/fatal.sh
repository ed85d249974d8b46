#!/bin/sh
# fatal.sh MPCRUN PROG: an operation not defined on the datatype, under MPI_ERRORS_ARE_FATAL, ends the job
# with the class as exit status (MPI_ERR_OP = 9) and one line per failing rank naming the call.
set -u
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$1" -n 3 "$2" fatal >"$out/stdout" 2>"$out/stderr"
status=$?
fail() {
    echo "FAIL: $*"
    head -n 20 "$out/stdout" "$out/stderr"
    exit 1
}
[ "$status" -eq 9 ] || fail "exit status $status, expected 9 (MPI_ERR_OP)"
grep -q '^mpcrt: rank [0-2]: MPI_Allreduce: invalid operation: .*MPI_BYTE (MPI_ERRORS_ARE_FATAL' "$out/stderr" ||
    fail "stderr must name the call, the class and the datatype"
[ ! -s "$out/stdout" ] || fail "no rank may finish"
echo "ok: the job ended with MPI_ERR_OP"
