#!/bin/sh
# Runs one MPI test job and checks its exit status and, optionally, a pattern its stderr must contain.
# Usage: run.sh EXPECTED_STATUS STDERR_PATTERN|- command...
expected=$1
pattern=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$@" >"$out/stdout" 2>"$out/stderr"
status=$?
cat "$out/stdout"
if [ "$status" -ne "$expected" ]; then
    echo "FAIL: '$*' exited $status, expected $expected"
    head -n 20 "$out/stderr"
    exit 1
fi
if [ "$pattern" != "-" ] && ! grep -q -- "$pattern" "$out/stderr"; then
    echo "FAIL: stderr of '$*' lacks '$pattern'"
    head -n 20 "$out/stderr"
    exit 1
fi
if [ "$expected" -eq 0 ] && [ -s "$out/stderr" ]; then
    echo "FAIL: unexpected output on stderr"
    head -n 20 "$out/stderr"
    exit 1
fi
exit 0
