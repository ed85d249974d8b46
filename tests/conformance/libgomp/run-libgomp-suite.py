#!/usr/bin/env python3
"""Runs GCC 12's libgomp test suite (libgomp.c and libgomp.c-c++-common) against an OpenMP runtime.

Fetches the suite once with `apt-get source --download-only gcc-12` (adding a deb-src entry derived from
/etc/apt/sources.list.d/debian.sources when none exists), compiles every test whose DejaGnu directives
make it a run test on x86-64 without offload devices, runs it and prints `N passed, N failed`.

Runtimes: mpcrt (default; link mode links -lgomp to libmpcrt, dropin mode builds against the system
libgomp and runs with mpcrt's libgomp.so.1 first in LD_LIBRARY_PATH), libgomp (the system's), libomp
(LLVM's, in the same two modes). Known failures (one reason per line) do not fail the run; a known
failure that passes is reported so that the list can shrink.

    run-libgomp-suite.py --build-dir build [--subset fast|all] [--runtime mpcrt] [--mode link|dropin]
"""

import argparse
import concurrent.futures
import fnmatch
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

SKIP = 77
TRIPLET = "x86_64-pc-linux-gnu"
SUITE_DIRS = ("libgomp.c", "libgomp.c-c++-common")


# ---------------------------------------------------------------- fetching the suite

def have_deb_src():
    for d in ("/etc/apt/sources.list.d",):
        for name in os.listdir(d) if os.path.isdir(d) else []:
            try:
                text = open(os.path.join(d, name)).read()
            except OSError:
                continue
            if re.search(r"^\s*Types:.*\bdeb-src\b", text, re.M) or re.search(r"^\s*deb-src\s", text, re.M):
                return True
    if os.path.exists("/etc/apt/sources.list"):
        if re.search(r"^\s*deb-src\s", open("/etc/apt/sources.list").read(), re.M):
            return True
    return False


def add_deb_src():
    """Writes a deb-src twin of debian.sources (needs root)."""
    src = "/etc/apt/sources.list.d/debian.sources"
    if not os.path.exists(src):
        return False
    stanzas = open(src).read().split("\n\n")
    out = []
    for s in stanzas:
        if re.search(r"^\s*Types:\s*deb\b", s, re.M):
            out.append(re.sub(r"^(\s*Types:).*$", r"\1 deb-src", s, flags=re.M))
    if not out:
        return False
    try:
        with open("/etc/apt/sources.list.d/mpcrt-deb-src.sources", "w") as f:
            f.write("\n\n".join(out) + "\n")
    except OSError:
        return False
    return subprocess.run(["apt-get", "update", "-qq"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def fetch(cache):
    root = os.path.join(cache, "gcc-12.2.0")
    if os.path.isdir(os.path.join(root, "libgomp", "testsuite", "libgomp.c")):
        return root
    os.makedirs(cache, exist_ok=True)
    orig = [f for f in os.listdir(cache) if f.startswith("gcc-12_") and f.endswith(".orig.tar.gz")]
    if not orig:
        if not have_deb_src() and not add_deb_src():
            print("cannot add a deb-src entry (not root?): run as root once, or fetch gcc-12's sources into "
                  + cache, file=sys.stderr)
            return None
        r = subprocess.run(["apt-get", "source", "--download-only", "gcc-12"], cwd=cache,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            print("apt-get source gcc-12 failed:\n" + r.stderr, file=sys.stderr)
            return None
        orig = [f for f in os.listdir(cache) if f.startswith("gcc-12_") and f.endswith(".orig.tar.gz")]
    # The orig tarball holds gcc-12-12.2.0/gcc-12.2.0-dfsg.tar.xz, which holds the sources.
    with tarfile.open(os.path.join(cache, orig[0])) as outer:
        member = next(m for m in outer.getmembers() if m.name.endswith("-dfsg.tar.xz"))
        inner = outer.extractfile(member)
        with tarfile.open(fileobj=inner, mode="r:xz") as tar:
            def wanted(m):
                n = m.name
                return (n.startswith("gcc-12.2.0/libgomp/testsuite/")
                        or re.match(r"gcc-12\.2\.0/libgomp/[^/]+\.h$", n)
                        or re.match(r"gcc-12\.2\.0/include/[^/]+\.h$", n))
            tar.extractall(cache, members=[m for m in tar if wanted(m)])
    return root


# ---------------------------------------------------------------- DejaGnu directives

def tcl_words(text):
    """Splits a Tcl list into words (braces nest, quotes group, backslashes escape)."""
    words, i, n = [], 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        if text[i] == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                if text[j] == "\\":
                    j += 2
                    continue
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            words.append(("brace", text[i + 1:j - 1]))
            i = j
        elif text[i] == '"':
            j, buf = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    buf.append(text[j:j + 2])
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            words.append(("quote", "".join(buf)))
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace():
                j += 1
            words.append(("bare", text[i:j]))
            i = j
    return words


def cpu_has(flag):
    try:
        return re.search(r"\b%s\b" % flag, open("/proc/cpuinfo").read()) is not None
    except OSError:
        return False


EFFECTIVE = {
    "lp64": True, "ia32": False, "size32plus": True, "tls": True, "tls_runtime": True,
    "sync_int_long": True, "shared": True, "fpic": True, "lto": True, "large_long_double": True,
    "__float128": True, "sse2_runtime": True, "vect_simd_clones": True, "c": True, "c++": False,
    "fopenmp": True, "pthread": True, "alias": True, "int128": True,
}


def effective(name):
    if name == "avx_runtime":
        return cpu_has("avx")
    if name.startswith("offload_") or name.startswith("openacc"):
        return False
    if "-" in name or "*" in name:  # a target triplet pattern
        return fnmatch.fnmatch(TRIPLET, name)
    return EFFECTIVE.get(name, False)


def selector(text):
    """Evaluates a DejaGnu target selector body ({ target ... } contents after 'target')."""
    words = tcl_words(text)
    if not words:
        return True
    ops = [w for k, w in words if k == "bare" and w in ("&&", "||")]
    if words[0] == ("bare", "!"):
        return not selector_word(words[1])
    if ops:
        value = selector_word(words[0])
        i = 1
        while i + 1 < len(words):
            op, rhs = words[i][1], selector_word(words[i + 1])
            value = (value and rhs) if op == "&&" else (value or rhs)
            i += 2
        return value
    return any(selector_word(w) for w in words)  # a list of triplets or targets: any matches


def selector_word(word):
    kind, text = word
    if kind == "brace":
        return selector(text)
    return effective(text)


def target_holds(word):
    """word is the braced `{ target ... }` / `{ ! ... }` argument of a directive; True if it applies."""
    kind, text = word
    ws = tcl_words(text)
    if ws and ws[0][1] == "target":
        return selector(text[text.index("target") + len("target"):])
    if ws and ws[0][1] == "xfail":
        return selector(text[text.index("xfail") + len("xfail"):])
    return selector(text)


class Test:
    def __init__(self, path, rel):
        self.path, self.rel = path, rel
        self.action = "run"
        self.options = None  # dg-options replaces the default -O2
        self.extra = []
        self.sources = []
        self.env = {}
        self.should_fail = False
        self.outputs = []
        self.skip_reason = None
        self.timeout = None
        self.parse()

    def parse(self):
        text = open(self.path, errors="replace").read()
        for m in re.finditer(r"\{\s*(dg-[a-z0-9-]+)((?:[^{}]|\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\})*)\}", text):
            name, args = m.group(1), tcl_words(m.group(2))
            if name == "dg-do":
                what = args[0][1].strip('"') if args else "run"
                if len(args) >= 2 and not target_holds(args[1]):
                    self.skip_reason = "dg-do %s for another target" % what  # DejaGnu: unsupported
                self.action = what
            elif name == "dg-options":
                if len(args) < 2 or target_holds(args[1]):
                    self.options = args[0][1] if args else ""
            elif name == "dg-additional-options":
                if args and (len(args) < 2 or target_holds(args[1])):
                    self.extra += args[0][1].split()
            elif name == "dg-add-options":
                if args and args[0][1] == "__float128":
                    pass  # nothing needed on x86-64
            elif name == "dg-additional-sources":
                if args:
                    self.sources += args[0][1].split()
            elif name == "dg-require-effective-target":
                if args and not effective(args[0][1]):
                    self.skip_reason = "requires " + args[0][1]
            elif name == "dg-skip-if":
                if len(args) >= 2 and target_holds(args[1]):
                    self.skip_reason = "dg-skip-if"
            elif name == "dg-set-target-env-var":
                if len(args) >= 2:
                    self.env[args[0][1]] = args[1][1]
            elif name == "dg-shouldfail":
                if len(args) < 2 or target_holds(args[1]):
                    self.should_fail = True
            elif name == "dg-output":
                if args and (len(args) < 2 or target_holds(args[1])):
                    self.outputs.append(args[0][1])
            elif name == "dg-timeout":
                if args:
                    self.timeout = int(args[0][1])

    @property
    def runs(self):
        return self.action == "run" and self.skip_reason is None


def collect(root):
    tests = []
    ts = os.path.join(root, "libgomp", "testsuite")
    for d in SUITE_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ts, d)):
            for f in sorted(files):
                if f.endswith(".c"):
                    p = os.path.join(dirpath, f)
                    tests.append(Test(p, os.path.relpath(p, ts)))
    tests.sort(key=lambda t: t.rel)
    return tests


# ---------------------------------------------------------------- building and running

def tcl_regex_to_python(pattern):
    # Tcl AREs and Python's re agree on what these tests use; unescape Tcl's \[ inside quotes.
    return pattern.replace("\\\\", "\\")


class Runtime:
    def __init__(self, args):
        self.args = args
        self.tmp = tempfile.mkdtemp(prefix="libgomp-suite-")
        self.compile_flags, self.link_flags, self.run_env = [], [], {}
        lib = os.path.abspath(os.path.join(args.build_dir, "lib")) if args.build_dir else None
        if args.runtime == "mpcrt":
            if args.omp_h == "mpcrt":
                self.compile_flags.append("-I" + os.path.join(args.source_dir, "include"))
            if args.mode == "link":
                self.link_flags += ["-L" + os.path.join(lib, "mpcrt", "gomp"), "-Wl,-rpath," + lib]
            else:
                self.run_env["LD_LIBRARY_PATH"] = lib
        elif args.runtime == "libomp":
            libomp = args.libomp
            shim = os.path.join(self.tmp, "shim")
            os.makedirs(shim)
            os.symlink(libomp, os.path.join(shim, "libgomp.so"))
            os.symlink(libomp, os.path.join(shim, "libgomp.so.1"))
            if args.mode == "link":
                self.link_flags += ["-L" + shim, "-Wl,-rpath," + os.path.dirname(libomp)]
            else:
                self.run_env["LD_LIBRARY_PATH"] = shim

    def env(self, test):
        env = dict(os.environ)
        for k in list(env):
            if k.startswith("OMP_") or k.startswith("GOMP_"):
                del env[k]
        env.update(self.run_env)
        env.update(test.env)
        return env


def run_one(rt, root, test, args):
    ts = os.path.join(root, "libgomp", "testsuite")
    work = os.path.join(rt.tmp, re.sub(r"[^A-Za-z0-9_.-]", "_", test.rel))
    os.makedirs(work, exist_ok=True)
    exe = os.path.join(work, "a.out")
    opts = (test.options.split() if test.options is not None else ["-O2"])
    srcs = [test.path] + [os.path.join(os.path.dirname(test.path), s) for s in test.sources]
    with open(os.path.join(work, "config.h"), "w") as f:
        f.write("#define HAVE_PTHREAD_AFFINITY_NP 1\n")  # what libgomp's configure finds on glibc
    cmd = (["gcc"] + rt.compile_flags + ["-I" + work, "-I" + os.path.join(root, "libgomp"), "-I" + os.path.join(root, "include"),
           "-I" + os.path.join(ts, "libgomp.c-c++-common")] + opts + test.extra
           + ["-fopenmp", "-foffload=disable", "-fdiagnostics-plain-output", "-w"] + args.extra_cflags.split() + srcs
           + ["-o", exe] + rt.link_flags + ["-lm"])
    t0 = time.time()
    c = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace")
    if c.returncode != 0:
        return test, False, "compile failed: " + c.stdout.strip().splitlines()[-1][:200] if c.stdout.strip() \
            else "compile failed", time.time() - t0
    if test.action == "link":
        return test, True, "", time.time() - t0
    timeout = test.timeout or args.timeout
    try:
        r = subprocess.run([exe], cwd=work, env=rt.env(test), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        out = r.stdout.decode(errors="replace")
        status = r.returncode
    except subprocess.TimeoutExpired as e:
        return test, False, "timed out after %d s" % timeout, time.time() - t0
    ok = (status != 0) if test.should_fail else (status == 0)
    why = "" if ok else ("exit status %d" % status if status >= 0 else "killed by signal %d" % -status)
    if ok and test.outputs:
        pattern = "".join(tcl_regex_to_python(p) for p in test.outputs)
        # DejaGnu reads the output through a terminal, which turns each \n into \r\n.
        if not re.search(pattern, out.replace("\n", "\r\n"), re.S):
            ok, why = False, "output does not match dg-output"
    if not ok and out.strip():
        why += ": " + out.strip().splitlines()[-1][:160]
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return test, ok, why, time.time() - t0


def load_known(path):
    known = {}
    if path and os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition(" ")
            known[name] = reason.strip()
    return known


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", help="mpcrt build tree (its lib/ holds libmpcrt and libgomp.so.1)")
    p.add_argument("--source-dir", default=os.path.normpath(os.path.join(here, "..", "..", "..")))
    p.add_argument("--cache", default=os.environ.get("MPCRT_SUITE_CACHE",
                                                   os.path.expanduser("~/.cache/mpcrt/gcc-12")))
    p.add_argument("--runtime", choices=("mpcrt", "libgomp", "libomp"), default="mpcrt")
    p.add_argument("--mode", choices=("link", "dropin"), default="link")
    p.add_argument("--omp-h", choices=("mpcrt", "gcc"), default="mpcrt",
                   help="compile against mpcrt's include/omp.h (default) or GCC's")
    p.add_argument("--libomp", default="/usr/lib/llvm-14/lib/libomp.so.5")
    p.add_argument("--subset", choices=("fast", "all"), default="all")
    p.add_argument("--filter", help="only tests whose path matches this regex")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--timeout", type=int, default=120)
    p.add_argument("--known-failures", default=os.path.join(here, "known-failures.txt"))
    p.add_argument("--extra-cflags", default="", help="added to every compile and link (sanitizers)")
    p.add_argument("--keep", action="store_true", help="keep the build directories of the tests")
    p.add_argument("--list", action="store_true", help="list the run tests and exit")
    p.add_argument("--show-skipped", action="store_true",
                   help="list the run tests skipped on this host (offload devices, other targets) with the reason")
    args = p.parse_args()
    if args.runtime == "mpcrt" and not args.build_dir:
        p.error("--build-dir is required for --runtime mpcrt")

    root = fetch(args.cache)
    if not root:
        return SKIP
    collected = collect(root)
    tests = [t for t in collected if t.runs]
    # Run tests that DejaGnu would report UNSUPPORTED here (offload devices, other targets, dg-skip-if).
    skipped = [t for t in collected if t.action == "run" and t.skip_reason]
    if args.subset == "fast":
        fast = [l.strip() for l in open(os.path.join(here, "fast-subset.txt")) if l.strip()
                and not l.startswith("#")]
        tests = [t for t in tests if t.rel in fast]
    if args.filter:
        tests = [t for t in tests if re.search(args.filter, t.rel)]
        skipped = [t for t in skipped if re.search(args.filter, t.rel)]
    if args.subset == "fast":
        skipped = []
    if args.show_skipped:
        for t in skipped:
            print("SKIP: %s (%s)" % (t.rel, t.skip_reason))
    if args.list:
        for t in tests:
            print(t.rel)
        return 0
    known = load_known(args.known_failures) if args.runtime == "mpcrt" else {}
    rt = Runtime(args)
    results = []
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for test, ok, why, secs in pool.map(lambda t: run_one(rt, root, t, args), tests):
            results.append((test, ok, why, secs))
            if not ok:
                tag = "KNOWN" if test.rel in known else "FAIL"
                print("%s: %s (%s)" % (tag, test.rel, why), flush=True)
    shutil.rmtree(rt.tmp, ignore_errors=True)
    passed = sum(1 for _, ok, _, _ in results if ok)
    failed = len(results) - passed
    unexpected = [t.rel for t, ok, _, _ in results if not ok and t.rel not in known]
    fixed = [t.rel for t, ok, _, _ in results if ok and t.rel in known]
    for name in fixed:
        print("NOW PASSING (remove from %s): %s" % (os.path.basename(args.known_failures), name))
    print("%d passed, %d failed (%d known, %d unexpected), %d skipped in %.0f s [%s, %s mode]"
          % (passed, failed, failed - len(unexpected), len(unexpected), len(skipped), time.time() - t0,
             args.runtime, args.mode))
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
