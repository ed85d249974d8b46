#!/bin/sh
# expect_unsupported.sh <unsupported_probe>: the probe's call to a stub must end the job with exit status
# 44 (MPI_ERR_UNSUPPORTED_OPERATION) and exactly one line on stderr naming the function.
probe=$1
name=$("$probe" --name) || exit 1
[ "$name" = none ] && { echo "SKIP: no stub with a communicator argument is left"; exit 77; }
err=$(mktemp "${TMPDIR:-/tmp}/mpi_api.XXXXXX") || exit 1
trap 'rm -f "$err"' EXIT
"$probe" >/dev/null 2>"$err"
status=$?
cat "$err"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$status" -eq 44 ] || fail "calling $name exited with $status, expected 44 (MPI_ERR_UNSUPPORTED_OPERATION)"
[ "$(wc -l <"$err")" -eq 1 ] || fail "expected exactly one line on stderr"
grep -q "$name: operation not supported: $name is not implemented in this version of mpcrt" "$err" ||
    fail "the message must name $name"
echo "ok: $name ends the job with MPI_ERR_UNSUPPORTED_OPERATION"
