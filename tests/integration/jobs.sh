#!/bin/sh
# Integration tests: thread-mode jobs under mpcrun, the wrappers and the installed prefix.
# Usage: jobs.sh CASE BUILD_DIR SOURCE_DIR   (one CTest test per CASE)
set -u
case_name=$1
build=$2
src=$3
bin=$build/bin
progs=$build/tests/integration
examples=$build/examples
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

fail() {
    echo "FAIL [$case_name]: $*"
    for f in "$out"/stdout "$out"/stderr; do
        [ -s "$f" ] && { echo "--- $(basename "$f"):"; head -n 20 "$f"; }
    done
    exit 1
}

# run EXPECTED_STATUS command...: runs it, saving stdout/stderr, and checks the exit status.
run() {
    expected=$1
    shift
    "$@" >"$out/stdout" 2>"$out/stderr"
    status=$?
    [ "$status" -eq "$expected" ] || fail "'$*' exited $status, expected $expected"
}

lines() { wc -l <"$1" | tr -d ' '; }

case "$case_name" in
hello)
    run 0 "$bin/mpcrun" -n 4 "$examples/hello"
    [ "$(lines "$out/stdout")" -eq 4 ] || fail "expected 4 lines"
    [ "$(grep -c 'of 4$' "$out/stdout")" -eq 4 ] || fail "every rank must report size 4"
    [ "$(sed -n 's/^hello from rank \([0-9]*\) of 4$/\1/p' "$out/stdout" | sort -nu | tr '\n' ' ')" = "0 1 2 3 " ] ||
        fail "ranks are not 0..3, each once"
    [ ! -s "$out/stderr" ] || fail "unexpected output on stderr"
    ;;
hybrid)
    run 0 "$bin/mpcrun" -n 4 "$examples/hybrid_sum"
    [ "$(grep -c ': correct$' "$out/stdout")" -eq 4 ] || fail "every rank must report a correct sum"
    ;;
many_ranks)
    run 0 "$bin/mpcrun" -n 10000 --oversubscribe "$examples/barrier_rounds" 5
    grep -q '^10000 ranks passed 5 barriers' "$out/stdout" || fail "rank 0 did not report 10000 ranks"
    ;;
semantics)
    run 0 "$bin/mpcrun" -n 5 "$progs/rank_semantics" pristine
    [ "$(grep -c ': ok$' "$out/stdout")" -eq 5 ] || fail "every rank must pass its checks"
    ;;
singleton)
    # Linked without mpcc's entry point: MPI_Init makes the process a one-rank job.
    run 0 "$progs/rank_semantics_plain" pristine
    grep -q '^rank 0 of 1: ok$' "$out/stdout" || fail "a plain program must be rank 0 of 1"
    ;;
exit_status)
    run 3 "$bin/mpcrun" -n 4 "$progs/exit_status"
    ;;
abort)
    run 7 "$bin/mpcrun" -n 3 "$progs/abort"
    grep -q 'rank 1 called MPI_Abort with error code 7' "$out/stderr" || fail "no MPI_Abort report"
    ;;
timeout)
    MPIEXEC_TIMEOUT=2 run 124 "$bin/mpcrun" -n 2 "$progs/hang"
    grep -q 'timed out after 2 s' "$out/stderr" || fail "no timeout message"
    ;;
bad_comm)
    "$bin/mpcrun" -n 2 "$progs/bad_comm" >"$out/stdout" 2>"$out/stderr" && fail "an invalid communicator must end the job"
    grep -q 'MPI_Comm_rank: invalid communicator' "$out/stderr" || fail "the error must name the function and class"
    ;;
mpcrun_errors)
    for args in "" "-n" "-n 0 $examples/hello" "-n abc $examples/hello" "--bogus -n 2 $examples/hello" \
        "-n 2" "-n 2 /nonexistent/prog" "-n 3 -p 2 $examples/hello" "--mode=fiber -n 2 $examples/hello" \
        "-n 100000 -c 1 $examples/hello" "--launcher=pbs -n 2 $examples/hello" \
        "--launcher=slurm -N 2 -n 4 -p 1 $examples/hello"; do
        # shellcheck disable=SC2086
        run 2 "$bin/mpcrun" $args
        [ "$(lines "$out/stderr")" -eq 1 ] || fail "'mpcrun $args' must print exactly one line"
        grep -q '^mpcrun: ' "$out/stderr" || fail "'mpcrun $args' error must start with 'mpcrun: '"
        [ ! -s "$out/stdout" ] || fail "'mpcrun $args' printed on stdout"
    done
    run 0 "$bin/mpcrun" --help
    for opt in -n -c -p -N --launcher --oversubscribe --timeout --mode --show-config --tag-output --help; do
        grep -q -- "$opt" "$out/stdout" || fail "--help does not document $opt"
    done
    run 0 "$bin/mpcrun" --show-config
    grep -q MPCRT_WAIT_POLICY "$out/stdout" || fail "--show-config must list the tunables"
    ;;
slurm_launch)
    # Inside a Slurm allocation mpcrun hands the job to srun --mpi=pmix: a stand-in srun records the command
    # line and the environment it was given, and its exit code must become mpcrun's.
    mkdir "$out/fake"
    cat >"$out/fake/srun" <<'SH'
#!/bin/sh
{ echo "args: $*"; echo "ranks per process: $MPCRT_RANKS_PER_PROC"; } >"$FAKE_SRUN_LOG"
exit 5
SH
    chmod +x "$out/fake/srun"
    export FAKE_SRUN_LOG="$out/srun.log"
    PATH="$out/fake:$PATH" SLURM_JOB_ID=42 run 5 "$bin/mpcrun" -N 2 -n 8 "$examples/hello" x
    grep -qx 'args: --mpi=pmix --kill-on-bad-exit=1 --ntasks=2 --nodes=2 -- .*/hello x' "$out/srun.log" ||
        fail "-N 2 -n 8: expected 2 processes on 2 nodes, got: $(cat "$out/srun.log")"
    grep -qx 'ranks per process: 4' "$out/srun.log" || fail "-N 2 -n 8: each process must host 4 ranks"
    PATH="$out/fake:$PATH" SLURM_JOB_ID=42 run 5 "$bin/mpcrun" -n 4 --mode=process -c 2 --tag-output "$examples/hello"
    grep -qx 'args: --mpi=pmix --kill-on-bad-exit=1 --ntasks=4 --cpus-per-task=2 --label -- .*/hello' \
        "$out/srun.log" || fail "--mode=process -c 2: got $(cat "$out/srun.log")"
    # --launcher=local keeps the job on this node even inside an allocation.
    PATH="$out/fake:$PATH" SLURM_JOB_ID=42 run 0 "$bin/mpcrun" --launcher=local -n 2 "$examples/hello"
    [ "$(grep -c 'of 2$' "$out/stdout")" -eq 2 ] || fail "--launcher=local must run the job itself"
    # Outside an allocation several nodes are refused, with one line.
    env -u SLURM_JOB_ID "$bin/mpcrun" -N 2 -n 4 "$examples/hello" >"$out/stdout" 2>"$out/stderr"
    [ $? -eq 2 ] || fail "-N 2 outside Slurm must exit 2"
    grep -q '^mpcrun: -N 2: .*Slurm allocation' "$out/stderr" || fail "-N 2 outside Slurm: $(cat "$out/stderr")"
    ;;
placement)
    [ "$(nproc)" -ge 2 ] || { echo "skipped: needs 2 cores"; exit 77; }
    run 0 "$bin/mpcrun" -n 2 -c 1 "$progs/placement"
    [ "$(sed -n 's/^rank [01] cpu \([0-9]*\)$/\1/p' "$out/stdout" | sort -u | wc -l)" -eq 2 ] ||
        fail "with -c 1 the two ranks must run on two different cores"
    # One rank per process, 2 cores each (on 2 cores every process gets both: 2 VPs, its rank on its own
    # first core), and the ranks still run on different cores.
    MPCRT_DEBUG=sched run 0 "$bin/mpcrun" -n 2 --mode=process -c 2 --oversubscribe "$progs/placement"
    [ "$(sed -n 's/^rank [01] cpu \([0-9]*\)$/\1/p' "$out/stdout" | sort -u | wc -l)" -eq 2 ] ||
        fail "--mode=process -c 2 --oversubscribe: the two ranks must run on two different cores"
    [ "$(grep -cE '^mpcrt: ([2-9]|[1-9][0-9]+) VP\(s\)' "$out/stderr")" -eq 2 ] ||
        fail "--mode=process -c 2 --oversubscribe: each process must have 2 VPs or more: $(cat "$out/stderr")"
    ;;
mpcc)
    run 0 "$bin/mpcc" --showme
    grep -q -- '--wrap=main' "$out/stdout" || fail "--showme must show the thread-mode entry point"
    run 0 "$bin/mpcc" --showme:compile
    grep -q -- "-I" "$out/stdout" || fail "--showme:compile must show the include path"
    run 2 "$bin/mpcc" -fmpc-privatize-bogus "$src/examples/hello.c" -o "$out/x"
    grep -q -- '-fmpc-privatize-bogus' "$out/stderr" || fail "the error must name the unknown option"
    run 0 "$bin/mpcc" -fmpc-privatize --showme
    grep -q -- '-fplugin=.*mpcpriv.so' "$out/stdout" || fail "-fmpc-privatize must load the plugin"
    cat >"$out/hello.cpp" <<'CXX'
#include <mpi.h>
#include <iostream>
#include <string>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // Ranks run in parallel on several cores: one write per line keeps lines whole.
    std::cout << ("c++ rank " + std::to_string(rank) + "\n") << std::flush;
    MPI_Finalize();
}
CXX
    run 0 "$bin/mpcxx" "$out/hello.cpp" -o "$out/hello_cxx"
    run 0 "$bin/mpcrun" -n 3 "$out/hello_cxx"
    [ "$(grep -c '^c++ rank [012]$' "$out/stdout")" -eq 3 ] || fail "the C++ program must run as 3 ranks"
    # Compile and link in separate steps, as build systems do.
    run 0 "$bin/mpcc" -c "$src/examples/hello.c" -o "$out/hello.o"
    run 0 "$bin/mpcc" "$out/hello.o" -o "$out/hello"
    run 0 "$bin/mpcrun" -n 2 "$out/hello"
    [ "$(lines "$out/stdout")" -eq 2 ] || fail "separately linked program must run as 2 ranks"
    ;;
install)
    prefix=$out/prefix
    run 0 cmake --install "$build" --prefix "$prefix"
    for f in bin/mpcrun bin/mpcc bin/mpcxx bin/mpiexec include/mpi.h include/mpcrt.h lib/libmpcrt.so \
        lib/libmpcrt_main.a libexec/mpcrt/mpcrt-info; do
        [ -e "$prefix/$f" ] || fail "the prefix lacks $f"
    done
    run 0 "$prefix/bin/mpcc" -O2 "$src/examples/hello.c" -o "$out/hello"
    run 0 "$prefix/bin/mpcrun" -n 3 "$out/hello"
    [ "$(lines "$out/stdout")" -eq 3 ] || fail "installed wrappers must build a working program"
    run 0 "$prefix/bin/mpcrun" --show-config
    ;;
pt2pt)
    for n in 2 5 33; do
        run 0 "$bin/mpcrun" -n $n "$progs/pt2pt_semantics"
        [ "$(grep -c ' checks ok$' "$out/stdout")" -eq $n ] || fail "every one of $n ranks must pass its checks"
    done
    ;;
stream_order)
    # Thread mode: one to four senders stream to rank 0, which receives late, probes, or posts ahead
    # (eleven with -n 12: more than the rings a rank gives out, so three senders take the locked path);
    # MPCRT_VPS=1 puts every rank on one core (no parallel pushes, but switches in the middle of them).
    # Then rank 1 parks on a receive whose sender used its inbox until then: it must wake (a hang ends
    # at the timeout).
    for n in 2 3 5 12; do
        run 0 "$bin/mpcrun" --timeout 100 -n $n "$progs/stream_order"
        grep -q '^rank 0: ok$' "$out/stdout" || fail "rank 0 must receive every stream whole and in order (-n $n)"
        grep -q '^rank 1: ok$' "$out/stdout" || fail "rank 1 must wake with the message it parked for (-n $n)"
    done
    MPCRT_VPS=1 run 0 "$bin/mpcrun" --timeout 100 -n 3 "$progs/stream_order"
    grep -q '^rank 0: ok$' "$out/stdout" || fail "rank 0 must receive every stream whole and in order (one VP)"
    ;;
thread_multiple)
    for n in 2 8; do
        run 0 "$bin/mpcrun" -n $n "$progs/thread_multiple"
        [ "$(grep -c ': ok$' "$out/stdout")" -eq $n ] || fail "every one of $n ranks must report ok"
    done
    ;;
hybrid_threads)
    # Two VPs whatever the machine: -c 2 gives each rank both (--oversubscribe: 4 cores asked of 2),
    # -c 1 one each, where a team of 2 must stay on its rank's core.
    for c in 2 1; do
        MPCRT_VPS=2 run 0 "$bin/mpcrun" -n 2 -c $c --oversubscribe "$progs/hybrid_threads" $c
        [ "$(grep -c ': ok ' "$out/stdout")" -eq 2 ] || fail "with -c $c every rank must report ok"
    done
    ldd "$progs/hybrid_threads" | grep -q 'libgomp' && fail "mpcc -fopenmp linked libgomp"
    ldd "$progs/hybrid_threads" | grep -q 'libmpcrt' || fail "mpcc -fopenmp did not link libmpcrt"
    ;;
*)
    echo "unknown case $case_name"
    exit 2
    ;;
esac
echo "PASS [$case_name]"
