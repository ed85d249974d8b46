# Shared by slurm.sh and slurm2.sh (sourced, bash): the opt-in checks, a scratch directory, munge, and the
# slurm.conf lines both clusters use. shared/slurm-local.md explains the recipe.

# slurm_require COMMAND...: exit 77 (skipped) unless asked for (MPCRT_TEST_SLURM=1), root, the commands and
# Slurm's PMIx plugin are there.
slurm_require() {
    [ "${MPCRT_TEST_SLURM:-0}" = 1 ] || { echo "skipped: set MPCRT_TEST_SLURM=1 to run (needs root and slurm-wlm)"; exit 77; }
    [ "$(id -u)" = 0 ] || { echo "skipped: needs root"; exit 77; }
    for c in slurmctld slurmd srun salloc munged mungekey sinfo "$@"; do
        command -v "$c" >/dev/null ||
            { echo "skipped: $c not installed (apt-get install slurmctld slurmd slurm-client munge)"; exit 77; }
    done
    ls /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix*.so >/dev/null 2>&1 || { echo "skipped: no mpi_pmix plugin"; exit 77; }
}

# slurm_start_munge: munged with a key and socket of its own under $base (its pid joins $pids).
slurm_start_munge() {
    mkdir -p "$base"/{etc,state,log,munge}
    chmod 755 "$base" "$base/munge" # munged wants every directory up to its socket searchable
    mungekey -c -k "$base/munge/munge.key" -b 1024 >/dev/null 2>&1
    munged -F --key-file="$base/munge/munge.key" --socket="$base/munge/munge.sock" --pid-file="$base/munge/pid" \
        --log-file="$base/log/munged.log" --seed-file="$base/munge/seed" >/dev/null 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do [ -S "$base/munge/munge.sock" ] && break; sleep 0.05; done
}

# slurm_conf_common CONTROLLER CTLD_PORT SLURMD_PORT: the slurm.conf lines before the nodes.
slurm_conf_common() {
    cat <<CONF
ClusterName=mpcrt
SlurmctldHost=$1
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$base/munge/munge.sock
CredType=cred/munge
SlurmctldPort=$2
SlurmdPort=$3
StateSaveLocation=$base/state
SlurmdSpoolDir=$base/spool/%n
SlurmctldPidFile=$base/slurmctld.pid
SlurmdPidFile=$base/slurmd-%n.pid
SlurmctldLogFile=$base/log/slurmctld.log
SlurmdLogFile=$base/log/slurmd-%n.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
CONF
}
