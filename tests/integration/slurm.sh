#!/bin/bash
# Opt-in: runs an mpcrt job under a real one-node Slurm that this script starts and stops
# (shared/slurm-local.md): `srun --mpi=pmix -n 4` of procs_check (one rank per process), then
# MPCRT_RANKS_PER_PROC=2 `srun --mpi=pmix -n 2` (ranks as threads of 2 processes), then `mpcrun -n 4 -p 2`
# inside `salloc` (mpcrun hands the job to srun).
# Needs root and Debian's slurmctld, slurmd, slurm-client, munge and libpmix-dev; set MPCRT_TEST_SLURM=1.
# Usage: slurm.sh BUILD_DIR       Exit 77 (skipped) when not asked for or when something is missing.
set -u
build=$1
prog=$build/tests/integration/procs_check
source "$(dirname -- "$0")/slurm_lib.sh"
slurm_require
base=$(mktemp -d /tmp/mpcrt-slurm.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$base"
}
trap cleanup EXIT
host=$(hostname)
mkdir -p "$base"/{spool/$host,pmixcli}
slurm_start_munge
ncpu=$(nproc)
{
    slurm_conf_common "$host" 16817 16818
    cat <<CONF
NodeName=$host CPUs=$ncpu State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
} >"$base/etc/slurm.conf"
echo "PMIxCliTmpDirBase=$base/pmixcli" >"$base/etc/mpi.conf"
export SLURM_CONF=$base/etc/slurm.conf
slurmctld -D -i -f "$SLURM_CONF" >"$base/log/ctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$base/log/d.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 100); do
    state=$(timeout 5 sinfo -h -o %T 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 0.2
done
[ "$state" = idle ] || { echo "FAIL: Slurm did not come up (node state: $state)"; tail "$base"/log/*; exit 1; }
out=$base/out
MPCRT_RANKS_PER_PROC=1 timeout 120 srun -K1 --mpi=pmix --overcommit -n 4 "$prog" >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c ': ok$' "$out")" -eq 4 ] || { echo "FAIL: srun -n 4 exited $rc"; cat "$out"; exit 1; }
MPCRT_RANKS_PER_PROC=2 timeout 120 srun -K1 --mpi=pmix --overcommit -n 2 "$prog" >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'of 4: ok$' "$out")" -eq 4 ] || { echo "FAIL: 2 processes x 2 ranks exited $rc"; cat "$out"; exit 1; }
# mpcrun inside an allocation hands the job to srun --mpi=pmix (2 processes x 2 ranks).
timeout 120 salloc -Q --overcommit -n 2 "$build/bin/mpcrun" -N 1 -n 4 -p 2 --oversubscribe "$prog" >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'of 4: ok$' "$out")" -eq 4 ] || { echo "FAIL: salloc mpcrun -n 4 -p 2 exited $rc"; cat "$out"; exit 1; }
echo "PASS [slurm]"
