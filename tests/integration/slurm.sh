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
[ "${MPCRT_TEST_SLURM:-0}" = 1 ] || { echo "skipped: set MPCRT_TEST_SLURM=1 to run (needs root and slurm-wlm)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skipped: needs root"; exit 77; }
for c in slurmctld slurmd srun munged mungekey sinfo; do
    command -v $c >/dev/null || { echo "skipped: $c not installed (apt-get install slurmctld slurmd slurm-client munge)"; exit 77; }
done
ls /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix*.so >/dev/null 2>&1 || { echo "skipped: no mpi_pmix plugin"; exit 77; }
base=$(mktemp -d /tmp/mpcrt-slurm.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$base"
}
trap cleanup EXIT
host=$(hostname)
mkdir -p "$base"/{etc,state,spool/$host,log,munge,pmixcli}
chmod 755 "$base" "$base/munge" # munged wants every directory up to its socket searchable
mungekey -c -k "$base/munge/munge.key" -b 1024 >/dev/null 2>&1
munged -F --key-file="$base/munge/munge.key" --socket="$base/munge/munge.sock" --pid-file="$base/munge/pid" \
    --log-file="$base/log/munged.log" --seed-file="$base/munge/seed" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -S "$base/munge/munge.sock" ] && break; sleep 0.05; done
ncpu=$(nproc)
cat >"$base/etc/slurm.conf" <<CONF
ClusterName=mpcrt
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$base/munge/munge.sock
CredType=cred/munge
SlurmctldPort=16817
SlurmdPort=16818
StateSaveLocation=$base/state
SlurmdSpoolDir=$base/spool/%n
SlurmctldPidFile=$base/slurmctld.pid
SlurmdPidFile=$base/slurmd.pid
SlurmctldLogFile=$base/log/slurmctld.log
SlurmdLogFile=$base/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
NodeName=$host CPUs=$ncpu State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
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
