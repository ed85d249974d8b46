#!/bin/bash
# Opt-in: an mpcrt job on two Slurm nodes. Two "nodes" on this machine (shared/slurm-local.md, variant C): each
# slurmd in its own network, UTS and mount namespaces (its own hostname and /dev/shm), joined by a veth pair
# whose addresses exist only inside them; slurmctld beside node 1. `mpcrun -N 2` inside `salloc -N 2` hands the
# job to srun, and the processes on different nodes talk over the tcp rail (different hosts: no shared memory).
# Needs root, iproute2, util-linux and Debian's slurmctld, slurmd, slurm-client, munge, libpmix-dev; set
# MPCRT_TEST_SLURM=1.   Usage: slurm2.sh BUILD_DIR     Exit 77 (skipped) when not asked for or something is missing.
set -u
build=$1
prog=$build/tests/integration/procs_check
source "$(dirname -- "$0")/slurm_lib.sh"
slurm_require ip nsenter unshare
base=$(mktemp -d /tmp/mpcrt-slurm2.XXXXXX)
ns1=mpcrt-s$$-1
ns2=mpcrt-s$$-2
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    ip netns del "$ns1" 2>/dev/null
    ip netns del "$ns2" 2>/dev/null
    rm -rf "$base"
}
trap cleanup EXIT
ip netns add "$ns1" && ip netns add "$ns2" || { echo "skipped: cannot create network namespaces"; exit 77; }
ip link add "sa$$" netns "$ns1" type veth peer name "sb$$" netns "$ns2" || { echo "skipped: no veth"; exit 77; }
for ns in "$ns1" "$ns2"; do ip -n "$ns" link set lo up; done
ip -n "$ns1" addr add 10.213.78.1/24 dev "sa$$"
ip -n "$ns2" addr add 10.213.78.2/24 dev "sb$$"
ip -n "$ns1" link set "sa$$" up
ip -n "$ns2" link set "sb$$" up
mkdir -p "$base"/{spool/n1,spool/n2,pmixcli/n1,pmixcli/n2}
slurm_start_munge
ncpu=$(nproc)
nodes=""
for i in 1 2; do
    nodes="${nodes}NodeName=n$i NodeHostname=n$i NodeAddr=10.213.78.$i CPUs=$ncpu State=UNKNOWN
"
done
{
    slurm_conf_common "ctl(10.213.78.1)" 16827 16828
    cat <<CONF
${nodes}PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
} >"$base/etc/slurm.conf"
echo "PMIxCliTmpDirBase=$base/pmixcli" >"$base/etc/mpi.conf"
export SLURM_CONF=$base/etc/slurm.conf
# slurmctld checks its hostname against SlurmctldHost: its own UTS namespace named ctl, in node 1's network.
nsenter --net=/run/netns/"$ns1" unshare --uts -- /bin/sh -c "hostname ctl && exec slurmctld -D -i -f $SLURM_CONF" \
    >"$base/log/ctld.out" 2>&1 &
pids+=($!)
i=0
for ns in "$ns1" "$ns2"; do
    i=$((i + 1))
    # nsenter and unshare exec in place ($! is slurmd's pid); a private /dev/shm per node, and the PMIx client
    # directory of the node mounted over the shared path.
    nsenter --net=/run/netns/"$ns" unshare --uts --mount --propagation private -- /bin/sh -c "hostname n$i &&
        mount -t tmpfs -o size=256m,mode=1777 tmpfs /dev/shm &&
        mount --bind $base/pmixcli/n$i $base/pmixcli &&
        exec slurmd -D -f $SLURM_CONF" >"$base/log/d$i.out" 2>&1 &
    pids+=($!)
done
on_ctl() { nsenter --net=/run/netns/"$ns1" "$@"; } # clients reach slurmctld at 10.213.78.1
idle=0
for _ in $(seq 150); do
    idle=$(on_ctl timeout 5 sinfo -h -N -t idle -o %N 2>/dev/null | wc -l)
    [ "$idle" = 2 ] && break
    sleep 0.2
done
[ "$idle" = 2 ] || { echo "FAIL: the two nodes did not come up"; tail "$base"/log/*; exit 1; }
out=$base/out
# 2 processes x 2 ranks, one process per node: mpcrun -N 2 inside the allocation.
on_ctl timeout 120 salloc -Q --overcommit -N 2 -n 2 "$build/bin/mpcrun" -N 2 -n 4 "$prog" >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'of 4: ok$' "$out")" -eq 4 ] || { echo "FAIL: mpcrun -N 2 -n 4 exited $rc"; cat "$out"; tail "$base"/log/*; exit 1; }
# One rank per process, two processes per node.
on_ctl timeout 120 salloc -Q --overcommit -N 2 -n 4 "$build/bin/mpcrun" -N 2 -n 4 --mode=process "$prog" >"$out" 2>&1
rc=$?
[ $rc -eq 0 ] && [ "$(grep -c 'of 4: ok$' "$out")" -eq 4 ] || { echo "FAIL: mpcrun -N 2 --mode=process exited $rc"; cat "$out"; exit 1; }
echo "PASS [slurm2]"
