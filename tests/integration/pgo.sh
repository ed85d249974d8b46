#!/bin/sh
# integration.pgo_profile BUILD: a profile-guided build (MPCRT_PGO) really was: its instrumented library
# built, every training run of scripts/pgo-train succeeded, and the main build's objects have their profiles
# (a training that fails only warns at build time, so this is where it shows).
build=$1
summary=$build/pgo/summary
[ -f "$summary" ] || { echo "pgo: no $summary (scripts/pgo-train did not run)"; exit 1; }
cat "$summary"
eval "$(tr ' ' '\n' < "$summary" | grep -E '^[a-z]+=[a-z0-9]+$')"
status=0
[ "$instrumented" = yes ] || { echo "pgo: the instrumented build failed (see $build/pgo/build.log)"; status=1; }
[ "${failed:-1}" -eq 0 ] || { echo "pgo: $failed training runs failed (see $build/pgo/work/*.out)"; status=1; }
[ "${profiles:-0}" -ge 100 ] || { echo "pgo: only ${profiles:-0} profiles (expected one per library source run)"; status=1; }
for src in mpi/pt2pt/match.c threads/sched.c omp/gomp/parallel.c; do
    [ -s "$build/runtime/CMakeFiles/mpcrt.dir/$src.gcda" ] || { echo "pgo: no profile for $src"; status=1; }
done
exit $status
