#!/bin/sh
# run.sh MPCRUN N PROG [MPCRUN OPTIONS]: runs PROG on N ranks; every rank must print "rank R of N: C checks ok" and nothing
# else may appear (failed checks print their line), and the job must exit 0.
set -u
mpcrun=$1
n=$2
prog=$3
shift 3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$mpcrun" -n "$n" "$@" "$prog" >"$out/stdout" 2>"$out/stderr"
status=$?
fail() {
    echo "FAIL: $(basename "$prog") on $n ranks: $*"
    head -n 40 "$out/stdout" "$out/stderr"
    exit 1
}
[ "$status" -eq 0 ] || fail "exit status $status"
ok=$(grep -c "^rank [0-9]* of $n: [0-9]* checks ok\$" "$out/stdout")
[ "$ok" -eq "$n" ] || fail "$ok of $n ranks passed their checks"
[ "$(wc -l <"$out/stdout")" -eq "$n" ] || fail "unexpected output"
[ ! -s "$out/stderr" ] || fail "unexpected output on stderr"
echo "ok: $(basename "$prog") on $n ranks"
