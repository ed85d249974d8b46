"""Shared helpers of the benchmark families run by bench/run-all (and usable on their own).

A family is an executable `bench/<name>/family` that takes `--build DIR --work DIR [--quick] [--reps N]`, builds
its programs into the work directory and prints to stdout:
  CSV rows      family,benchmark,param,implementation,repetition,value,unit
  "# text"      a note for the report (commands run, skipped implementations, timeouts)
  "#@plot JSON" a plot of some of its benchmarks (see bench/README.md)
Anything else it has to say goes to stderr (run-all keeps it in the log).  Runs of different implementations
are interleaved (A B C A B C ...), rotating the first one, so slow drifts of the machine hit all of them."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NPROC = os.cpu_count() or 1


class Family:
    def __init__(self, name, doc="", quick_reps=2, full_reps=5):
        p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("--build", default="build", help="mpcrt build directory (default: build)")
        p.add_argument("--work", default=None, help="where programs are built (default: a temporary dir)")
        p.add_argument("--quick", action="store_true", help="fewer sizes, ranks and repetitions")
        p.add_argument("--reps", type=int, default=None, help="repetitions (runs per implementation)")
        self.args = p.parse_args()
        self.name = name
        self.build = os.path.abspath(self.args.build)
        self.quick = self.args.quick
        self.reps = self.args.reps or (quick_reps if self.quick else full_reps)
        self.work = os.path.abspath(self.args.work or f"/tmp/mpcrt-bench-{name}-{os.getpid()}")
        os.makedirs(self.work, exist_ok=True)
        self.mpcc = os.path.join(self.build, "bin", "mpcc")
        self.mpcrun = os.path.join(self.build, "bin", "mpcrun")
        self.commands = set()

    # ---- output
    def emit(self, benchmark, param, impl, rep, value, unit):
        print(f"{self.name},{benchmark},{param},{impl},{rep},{value:.6g},{unit}", flush=True)

    def note(self, text):
        for line in str(text).splitlines():
            print(f"# {line}", flush=True)

    def plot(self, **spec):
        print("#@plot " + json.dumps(spec), flush=True)

    def command(self, cmd):
        """Record a command once, with the work directory shortened, for the report."""
        text = " ".join(cmd).replace(self.work + "/", "").replace(self.build + "/", "$BUILD/")
        if text not in self.commands:
            self.commands.add(text)
            self.note("$ " + text)

    # ---- building and running
    def compile(self, cmd):
        self.command(cmd)
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stdout + r.stderr)
            self.note(f"build failed: {' '.join(cmd)}")
            return False
        return True

    def run(self, cmd, timeout=60, env=None, record=True):
        """stdout of cmd, or None (noted) when it fails or runs past timeout seconds; also the wall time."""
        if record:
            self.command(cmd)
        t0 = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_session(proc.pid)
            proc.communicate()
            sys.stderr.write(f"timeout after {timeout} s: {' '.join(cmd)}\n")
            return None, time.monotonic() - t0
        wall = time.monotonic() - t0
        if proc.returncode != 0:
            sys.stderr.write(f"exit {proc.returncode}: {' '.join(cmd)}\n{stdout[-2000:]}{stderr[-2000:]}\n")
            return None, wall
        return stdout, wall

    def rounds(self, impls):
        """(repetition, implementation) in interleaved order, the first implementation rotating."""
        impls = list(impls)
        for r in range(self.reps):
            k = r % len(impls) if impls else 0
            for impl in impls[k:] + impls[:k]:
                yield r, impl


def kill_session(session):
    """End every process of a launcher's session (the launcher ran with start_new_session, so its session id is
    its pid): Open MPI puts each rank in its own process group, so killing the group leaves ranks behind."""
    import signal
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == session:  # field 6 of stat: the session id
                os.kill(int(entry), signal.SIGKILL)
        except (OSError, IndexError, ValueError):
            pass


# ---- MPI implementations: one source, each wrapper, each launcher
OMPI = ["mpirun.openmpi", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]


class MPI:
    """The MPI implementations compared: mpcrt (thread mode, all ranks in one process), Open MPI and MPICH
    (one process per rank). 'openmpi-yield' is Open MPI with mpi_yield_when_idle, used only where ranks
    outnumber cores; MPICH has no such option (its ranks always busy-poll)."""

    def __init__(self, fam):
        self.fam = fam
        self.wrappers = {"mpcrt": fam.mpcc, "openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich"}
        self.available = [n for n, cc in self.wrappers.items() if shutil.which(cc) or os.access(cc, os.X_OK)]
        for n in self.wrappers:
            if n not in self.available:
                fam.note(f"{n}: {self.wrappers[n]} not found (scripts/install-deps --bench), skipped")
        # mpcrt's process mode (one process per rank, as the peers) joins as 'mpcrt-proc' once mpcrun has it.
        self.process_mode = False
        if "mpcrt" in self.available:
            usage = subprocess.run([fam.mpcrun, "--help"], capture_output=True, text=True).stdout
            self.process_mode = "--mode=" in usage and "only 'thread' is supported" not in usage

    def build(self, src, exe_name, flags=()):
        """{implementation: executable} for the implementations where src compiled."""
        exes = {}
        for impl in self.available:
            exe = os.path.join(self.fam.work, f"{exe_name}.{impl}")
            if self.fam.compile([self.wrappers[impl], "-O2", "-w", *flags, src, "-o", exe]):
                exes[impl] = exe
        return exes

    def impls_for(self, exes, ranks):
        """Implementations to run at this rank count: openmpi-yield joins when the cores are oversubscribed;
        mpcrt-proc when mpcrun has a process mode."""
        out = list(exes)
        if "mpcrt" in exes and self.process_mode:
            out.insert(out.index("mpcrt") + 1, "mpcrt-proc")
        if "openmpi" in exes and ranks > NPROC:
            out.insert(out.index("openmpi") + 1, "openmpi-yield")
        return out

    def launch(self, impl, ranks, exe, args=()):
        args = [str(a) for a in args]
        if impl == "mpcrt":
            over = ["--oversubscribe"] if ranks > NPROC else []
            return [self.fam.mpcrun, "-n", str(ranks), *over, exe, *args]
        if impl == "mpcrt-core":
            # Thread mode confined to one core: the ranks are ULTs of one VP and no message crosses a cache.
            return ["taskset", "-c", str(min(os.sched_getaffinity(0))), self.fam.mpcrun, "-n", str(ranks), exe,
                    *args]
        if impl == "mpcrt-proc":
            over = ["--oversubscribe"] if ranks > NPROC else []
            return [self.fam.mpcrun, "-n", str(ranks), "-p", str(ranks), "--mode=process", *over, exe, *args]
        if impl == "openmpi":
            return OMPI + ["-n", str(ranks), exe, *args]
        if impl == "openmpi-yield":
            return OMPI + ["--mca", "mpi_yield_when_idle", "1", "-n", str(ranks), exe, *args]
        if impl == "mpich":
            return ["mpiexec.mpich", "-n", str(ranks), exe, *args]
        raise ValueError(impl)

    @staticmethod
    def exe_of(exes, impl):
        return exes[{"openmpi-yield": "openmpi", "mpcrt-proc": "mpcrt", "mpcrt-core": "mpcrt"}.get(impl, impl)]


def parse_lines(text):
    """Lines 'key param value' of a benchmark program's stdout (others ignored)."""
    for line in (text or "").splitlines():
        f = line.split()
        if len(f) == 3 and not line.startswith("#"):
            try:
                yield f[0], f[1], float(f[2])
            except ValueError:
                pass
