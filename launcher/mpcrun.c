/*
 * mpcrun - job launcher for mpcrt.
 *
 * A job is one process (thread mode: the runtime, already linked into the
 * program, creates the MPI ranks as user-level threads), several processes
 * served by mpcrun's own PMIx server on this node (-p, --mode=process:
 * procs.c), or, inside a Slurm allocation, processes started by srun
 * --mpi=pmix on the allocation's nodes (slurm.c).  mpcrun never talks to the
 * runtime directly; the interface is the set of MPCRT_* environment variables
 * it exports to the processes (see usage()) and the PMIx job keys.  Everything mpcrun can reject is rejected before the
 * child is started, so a bad command line never leaves half a job behind.
 *
 * On success mpcrun prints nothing itself: test harnesses compare the job's
 * output byte for byte.
 */
#define _XOPEN_SOURCE 700 /* POSIX 2008 plus realpath() */

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <hwloc.h>

#include "procs.h"
#include "slurm.h"

#ifndef MPCRT_VERSION
#define MPCRT_VERSION "0.1.0"
#endif

/* Exit codes follow the conventions of coreutils timeout(1) and the shell. */
#define EXIT_USAGE 2
#define EXIT_TIMEOUT 124
#define EXIT_EXEC_FAILED 127
#define EXIT_SIGNAL_BASE 128

#define MAX_RANKS 10000000LL
/* Other counts only need an upper bound so that R * c cannot overflow. */
#define MAX_COUNT ((long long)INT_MAX)
#define KILL_GRACE_SECONDS 2

#define INFO_RELPATH "/../libexec/mpcrt/mpcrt-info"

enum opt_id {
    OPT_RANKS,
    OPT_CORES,
    OPT_PROCS,
    OPT_NODES,
    OPT_LAUNCHER,
    OPT_MODE,
    OPT_OVERSUBSCRIBE,
    OPT_TAG_OUTPUT,
    OPT_TIMEOUT,
    OPT_SHOW_CONFIG,
    OPT_ON_FAILURE,
    OPT_HELP,
    OPT_VERSION,
};

struct opt_spec {
    const char *name;
    enum opt_id id;
    bool has_value;
};

/*
 * Every accepted spelling.  Order matters for attached short values: "-np"
 * must come before "-n" so that "-np4" means "-np 4", not "-n p4".
 */
static const struct opt_spec opt_table[] = {
    {"-np", OPT_RANKS, true},
    {"-n", OPT_RANKS, true},
    {"--n", OPT_RANKS, true},
    {"--np", OPT_RANKS, true},
    {"-c", OPT_CORES, true},
    {"--cores-per-rank", OPT_CORES, true},
    {"-p", OPT_PROCS, true},
    {"--procs", OPT_PROCS, true},
    {"--launcher", OPT_LAUNCHER, true},
    {"-N", OPT_NODES, true},
    {"--nodes", OPT_NODES, true},
    {"--mode", OPT_MODE, true},
    {"--oversubscribe", OPT_OVERSUBSCRIBE, false},
    {"--tag-output", OPT_TAG_OUTPUT, false},
    {"--timeout", OPT_TIMEOUT, true},
    {"--show-config", OPT_SHOW_CONFIG, false},
    {"--on-failure", OPT_ON_FAILURE, true},
    {"-h", OPT_HELP, false},
    {"--help", OPT_HELP, false},
    {"-V", OPT_VERSION, false},
    {"--version", OPT_VERSION, false},
};

struct job_config {
    long long ranks;          /* 0: not given */
    long long cores_per_rank; /* 0: not given */
    long long procs;
    bool procs_given;
    long long nodes;
    bool nodes_given;
    enum { LAUNCH_AUTO, LAUNCH_LOCAL, LAUNCH_SLURM } launcher;
    bool use_slurm; /* resolved from launcher by validate_job */
    long long timeout; /* seconds, 0: no timeout */
    bool timeout_given;
    bool oversubscribe;
    bool tag_output; /* prefix each line with its rank (processes only: one process cannot tell) */
    bool process_mode;
    bool show_config;
    bool keep_going;  /* --on-failure=continue: a failed process does not end the others */
    char **prog_argv; /* NULL when no program was given */
};

/* The signals a user (or batch system) sends to "the job". */
static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NUM_FORWARDED (sizeof(forwarded_signals) / sizeof(forwarded_signals[0]))

static const char *progname_for_info; /* argv[0], to locate mpcrt-info */

/* All user-facing errors are a single line so scripts can grep for them. */
static _Noreturn void __attribute__((format(printf, 1, 2))) die(const char *fmt, ...)
{
    va_list ap;

    fputs("mpcrun: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(EXIT_USAGE);
}

static void usage(void)
{
    fputs("Usage: mpcrun [options] [--] program [args...]\n"
          "       mpcrun --show-config | --help | --version\n"
          "\n"
          "Runs PROGRAM (linked with the mpcrt runtime) as one process in which the\n"
          "runtime creates the MPI ranks as user-level threads, or as several processes\n"
          "(-p, --mode=process) that mpcrun connects through the PMIx server it hosts.\n"
          "\n"
          "Options (long options also accept --opt=value):\n"
          "  -n, -np, --n R           number of MPI ranks (required, 1..10000000)\n"
          "  -c, --cores-per-rank N   cores reserved per rank; the job must fit on the\n"
          "                           cores available to mpcrun (R*N <= cores) unless\n"
          "                           --oversubscribe is given\n"
          "  -p, --procs P            number of processes (default 1); R must be divisible\n"
          "                           by P: each process runs R/P ranks as threads\n"
          "  -N, --nodes M            number of nodes; M > 1 needs a Slurm allocation (the\n"
          "                           processes default to one per node: -p M)\n"
          "  --launcher=auto|local|slurm\n"
          "                           who starts the processes: slurm runs them with\n"
          "                           srun --mpi=pmix; local, mpcrun's own PMIx server on\n"
          "                           this node; auto (default): slurm inside a Slurm\n"
          "                           allocation (SLURM_JOB_ID set), local otherwise\n"
          "  --mode=thread|process    thread (default): ranks are threads of -p processes;\n"
          "                           process: one rank per process (-p = -n), for any\n"
          "                           MPI program, even one not built with mpcc\n"
          "  --oversubscribe          allow more ranks*cores than available cores\n"
          "  --tag-output             prefix each output line with its rank, \"[r] \" (with\n"
          "                           several processes; one process cannot tell ranks apart)\n"
          "  --timeout SECONDS        kill the job after SECONDS (SIGTERM to its process\n"
          "                           group, SIGKILL 2 s later) and exit with 124;\n"
          "                           overrides MPIEXEC_TIMEOUT\n"
          "  --on-failure=kill|continue  kill (default): a process that fails ends the\n"
          "                           job; continue: the others go on (their operations\n"
          "                           with the failed ranks return MPI_ERR_PROC_ABORTED)\n"
          "                           and the job ends when they do, with the failed\n"
          "                           process's code (with -p P > 1)\n"
          "  --show-config            run <mpcrun dir>/../libexec/mpcrt/mpcrt-info to\n"
          "                           show the runtime configuration (no program needed)\n"
          "  -h, --help               show this help and exit\n"
          "  -V, --version            show the version and exit\n"
          "  --                       end of options\n"
          "\n"
          "Environment set for the program:\n"
          "  MPCRT_RANKS_PER_PROC=R   ranks created in the process\n"
          "  MPCRT_NUM_PROCS=P        number of processes in the job\n"
          "  PMIX_*                   with P > 1: how each process reaches mpcrun's PMIx server\n"
          "  MPCRT_CORES_PER_RANK=N   only with -c (otherwise removed)\n"
          "  MPCRT_OVERSUBSCRIBE=1    only with --oversubscribe (otherwise removed)\n"
          "  MPCRT_JOB_CORES=N        with --oversubscribe: the cores available to mpcrun\n"
          "  MPCRT_FIRST_CPU=C        per process, when -c gives processes more cores than\n"
          "                           their share (--oversubscribe): its rank's CPU\n"
          "\n"
          "Environment read by mpcrun:\n"
          "  MPIEXEC_TIMEOUT          default for --timeout (positive seconds)\n"
          "\n"
          "Exit status: the program's exit status; 128+N if it was killed by signal N;\n"
          "124 on timeout; 127 if it could not be executed; 2 for usage errors. With\n"
          "several processes, the first one to fail (a signal, MPI_Abort, an exit before\n"
          "MPI_Finalize) ends the job within 2 s and gives its code.\n",
          stdout);
}

/*
 * Strict decimal parser: digits only, so "4x", "-1", "+3", " 3" and "" are all
 * rejected instead of being silently truncated as strtol() would.
 */
static bool parse_count(const char *s, long long max, long long *out)
{
    long long v = 0;

    if (*s == '\0') return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        v = v * 10 + (*s - '0');
        if (v > max) return false;
    }
    if (v < 1) return false;
    *out = v;
    return true;
}

static long long parse_option_count(const char *opt, const char *value, long long max)
{
    long long v;

    if (!parse_count(value, max, &v))
        die("%s: invalid value '%s' (expected a positive integer <= %lld)", opt, value, max);
    return v;
}

/*
 * Finds the table entry for ARG.  Exact matches are tried first so that a
 * long option is never mistaken for a short one with an attached value.
 * *inline_value receives the text after "--opt=" or after a short "-nVALUE".
 */
static const struct opt_spec *match_option(const char *arg, const char **inline_value)
{
    size_t n = sizeof(opt_table) / sizeof(opt_table[0]);

    *inline_value = NULL;
    for (size_t i = 0; i < n; i++)
        if (strcmp(arg, opt_table[i].name) == 0) return &opt_table[i];

    for (size_t i = 0; i < n; i++) {
        const char *name = opt_table[i].name;
        size_t len = strlen(name);
        bool is_long = name[1] == '-';

        if (strncmp(arg, name, len) != 0) continue;
        if (is_long && arg[len] == '=') {
            *inline_value = arg + len + 1;
            return &opt_table[i];
        }
        /* Only short options that take a value may have it attached. */
        if (!is_long && opt_table[i].has_value) {
            *inline_value = arg + len;
            return &opt_table[i];
        }
    }
    return NULL;
}

static void set_mode(struct job_config *cfg, const char *opt, const char *value)
{
    if (strcmp(value, "thread") == 0) {
        cfg->process_mode = false;
        return;
    }
    if (strcmp(value, "process") == 0) {
        cfg->process_mode = true;
        return;
    }
    die("%s=%s: invalid mode (expected 'thread' or 'process')", opt, value);
}

static void apply_option(struct job_config *cfg, const struct opt_spec *spec, const char *value)
{
    const char *opt = spec->name;

    switch (spec->id) {
    case OPT_RANKS:
        cfg->ranks = parse_option_count(opt, value, MAX_RANKS);
        break;
    case OPT_CORES:
        cfg->cores_per_rank = parse_option_count(opt, value, MAX_COUNT);
        break;
    case OPT_PROCS:
        cfg->procs = parse_option_count(opt, value, MAX_COUNT);
        cfg->procs_given = true;
        break;
    case OPT_NODES:
        cfg->nodes = parse_option_count(opt, value, MAX_COUNT);
        cfg->nodes_given = true;
        break;
    case OPT_LAUNCHER:
        if (strcmp(value, "auto") == 0)
            cfg->launcher = LAUNCH_AUTO;
        else if (strcmp(value, "local") == 0)
            cfg->launcher = LAUNCH_LOCAL;
        else if (strcmp(value, "slurm") == 0)
            cfg->launcher = LAUNCH_SLURM;
        else
            die("%s=%s: invalid launcher (expected 'auto', 'local' or 'slurm')", opt, value);
        break;
    case OPT_MODE:
        set_mode(cfg, opt, value);
        break;
    case OPT_OVERSUBSCRIBE:
        cfg->oversubscribe = true;
        break;
    case OPT_TAG_OUTPUT:
        cfg->tag_output = true;
        break;
    case OPT_TIMEOUT:
        cfg->timeout = parse_option_count(opt, value, MAX_COUNT);
        cfg->timeout_given = true;
        break;
    case OPT_SHOW_CONFIG:
        cfg->show_config = true;
        break;
    case OPT_ON_FAILURE:
        if (strcmp(value, "kill") != 0 && strcmp(value, "continue") != 0)
            die("%s=%s: invalid policy (expected 'kill' or 'continue')", opt, value);
        cfg->keep_going = strcmp(value, "continue") == 0;
        break;
    case OPT_HELP:
        usage();
        exit(EXIT_SUCCESS);
    case OPT_VERSION:
        puts("mpcrun (mpcrt) " MPCRT_VERSION);
        exit(EXIT_SUCCESS);
    }
}

/*
 * Options end at "--" or at the first non-option word; everything after that
 * belongs to the program, so "mpcrun -n 2 prog -n 5" passes "-n 5" to prog.
 * -h/-V act when reached, like GNU tools, so they work without a program.
 */
static void parse_args(int argc, char **argv, struct job_config *cfg)
{
    int i = 1;

    while (i < argc) {
        const char *arg = argv[i];
        const char *value;
        const struct opt_spec *spec;

        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (arg[0] != '-' || arg[1] == '\0') break;

        spec = match_option(arg, &value);
        if (!spec) die("%s: unknown option (see mpcrun --help)", arg);
        if (!spec->has_value && value) die("%s: option takes no value", spec->name);
        if (spec->has_value && !value) {
            if (i + 1 >= argc) die("%s: missing value", spec->name);
            value = argv[++i];
        }
        apply_option(cfg, spec, value);
        i++;
    }
    cfg->prog_argv = i < argc ? &argv[i] : NULL;
}

/* The option wins over the environment, as with MPICH's mpiexec. */
static void resolve_timeout(struct job_config *cfg)
{
    const char *env = getenv("MPIEXEC_TIMEOUT");

    if (cfg->timeout_given || !env || *env == '\0') return;
    if (!parse_count(env, MAX_COUNT, &cfg->timeout))
        die("MPIEXEC_TIMEOUT=%s: invalid value (expected a positive integer)", env);
}

static unsigned count_objs_in(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_const_cpuset_t set)
{
    unsigned n = 0;
    hwloc_obj_t obj = NULL;

    while ((obj = hwloc_get_next_obj_by_type(topo, type, obj)) != NULL)
        if (obj->cpuset && hwloc_bitmap_intersects(obj->cpuset, set)) n++;
    return n;
}

/*
 * Cores the job may use: those both allowed by the cgroup/cpuset and in our
 * binding (taskset, batch system), since the child inherits both.  Some
 * platforms expose no core objects, hence the PU fallback.
 */
static long long count_available_cores(void)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t set;
    hwloc_const_cpuset_t allowed;
    long long n;

    if (hwloc_topology_init(&topo) != 0) return sysconf(_SC_NPROCESSORS_ONLN);
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return sysconf(_SC_NPROCESSORS_ONLN);
    }

    allowed = hwloc_topology_get_allowed_cpuset(topo);
    set = hwloc_bitmap_alloc();
    if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) hwloc_bitmap_and(set, set, allowed);
    if (set && hwloc_bitmap_iszero(set)) hwloc_bitmap_copy(set, allowed);

    n = set ? count_objs_in(topo, HWLOC_OBJ_CORE, set) : 0;
    if (set && n == 0) n = count_objs_in(topo, HWLOC_OBJ_PU, set);
    if (n == 0) n = sysconf(_SC_NPROCESSORS_ONLN);

    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
    return n;
}

/* Without -c the runtime may multiplex any number of ranks on the cores. */
static void check_placement(const struct job_config *cfg)
{
    long long needed, available;

    if (cfg->cores_per_rank == 0 || cfg->oversubscribe) return;
    needed = cfg->ranks * cfg->cores_per_rank;
    available = count_available_cores();
    if (needed > available)
        die("-n %lld -c %lld needs %lld cores but only %lld are available (use --oversubscribe)", cfg->ranks,
            cfg->cores_per_rank, needed, available);
}

static void validate_job(struct job_config *cfg)
{
    if (cfg->ranks == 0) die("-n: number of ranks is required (e.g. mpcrun -n 4 prog)");
    if (!cfg->prog_argv) die("no program given (see mpcrun --help)");
    cfg->use_slurm = cfg->launcher == LAUNCH_SLURM || (cfg->launcher == LAUNCH_AUTO && slurm_allocation_here());
    if (cfg->nodes > 1 && !cfg->use_slurm)
        die("-N %lld: a job on several nodes needs a Slurm allocation (salloc -N %lld, then mpcrun inside it)",
            cfg->nodes, cfg->nodes);
    if (cfg->use_slurm && cfg->nodes_given && !cfg->procs_given && !cfg->process_mode)
        cfg->procs = cfg->nodes; /* one process per node, its ranks as threads */
    if (cfg->process_mode) {
        if (cfg->procs_given && cfg->procs != cfg->ranks)
            die("--mode=process runs one rank per process: -p %lld contradicts -n %lld", cfg->procs,
                cfg->ranks);
        cfg->procs = cfg->ranks;
    }
    if (cfg->procs > cfg->ranks) die("-p %lld: more processes than ranks (-n %lld)", cfg->procs, cfg->ranks);
    if (cfg->ranks % cfg->procs != 0)
        die("-n %lld: number of ranks must be divisible by -p %lld", cfg->ranks, cfg->procs);
    if (cfg->nodes_given && cfg->procs < cfg->nodes)
        die("-N %lld: more nodes than processes (-p %lld)", cfg->nodes, cfg->procs);
    if (!cfg->use_slurm)
        check_placement(cfg); /* under Slurm, the allocation's nodes hold the cores */
}

/* execvp() also skips directories, so a directory is "not found" too. */
static bool is_executable_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static char *join_path(const char *dir, size_t dirlen, const char *name)
{
    size_t namelen = strlen(name);
    char *path = malloc(dirlen + namelen + 2);

    if (!path) die("out of memory");
    memcpy(path, dir, dirlen);
    path[dirlen] = '/';
    memcpy(path + dirlen + 1, name, namelen + 1);
    return path;
}

/* Same default as glibc's execvp() when PATH is unset. */
static char *default_search_path(void)
{
    size_t len = confstr(_CS_PATH, NULL, 0);
    char *buf = len ? malloc(len) : NULL;

    if (!buf) return strdup("/bin:/usr/bin");
    confstr(_CS_PATH, buf, len);
    return buf;
}

/*
 * Resolves PROG the way execvp() would, so that "program not found" is
 * reported before forking instead of as an exit status 127 from the child.
 * Returns a malloc'd path, or NULL.
 */
static char *find_program(const char *prog)
{
    const char *env = getenv("PATH");
    char *search, *result = NULL;
    const char *dir;

    if (*prog == '\0') return NULL;
    if (strchr(prog, '/')) return is_executable_file(prog) ? strdup(prog) : NULL;

    search = env ? strdup(env) : default_search_path();
    if (!search) die("out of memory");
    dir = search;
    while (!result) {
        const char *end = strchr(dir, ':');
        size_t len = end ? (size_t)(end - dir) : strlen(dir);
        /* An empty PATH entry means the current directory. */
        char *candidate = len ? join_path(dir, len, prog) : join_path(".", 1, prog);

        if (is_executable_file(candidate))
            result = candidate;
        else
            free(candidate);
        if (!end) break;
        dir = end + 1;
    }
    free(search);
    return result;
}

static void set_env_count(const char *name, long long value)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%lld", value);
    if (setenv(name, buf, 1) != 0) die("cannot set %s: %s", name, strerror(errno));
}

/*
 * Variables for options that were not given are removed, so that a value
 * left in the user's environment by an earlier job cannot leak into this one:
 * the child's MPCRT_* settings always reflect exactly this command line.
 * Done in the parent before fork() so the child need not allocate.
 */
static void export_job_env(const struct job_config *cfg)
{
    if (cfg->ranks > 0)
        set_env_count("MPCRT_RANKS_PER_PROC", cfg->ranks / cfg->procs);
    else
        unsetenv("MPCRT_RANKS_PER_PROC");
    set_env_count("MPCRT_NUM_PROCS", cfg->procs);
    if (cfg->cores_per_rank > 0)
        set_env_count("MPCRT_CORES_PER_RANK", cfg->cores_per_rank);
    else
        unsetenv("MPCRT_CORES_PER_RANK");
    if (cfg->oversubscribe)
        set_env_count("MPCRT_OVERSUBSCRIBE", 1);
    else
        unsetenv("MPCRT_OVERSUBSCRIBE");
    /* Whether the runtime's spins must yield depends on the cores the job has here, which may be fewer
     * than the machine's (taskset, a cgroup). Not under Slurm: each node's share is the allocation's. */
    if (cfg->oversubscribe && !cfg->use_slurm)
        set_env_count("MPCRT_JOB_CORES", count_available_cores());
    else
        unsetenv("MPCRT_JOB_CORES");
}

/* /proc/self/exe survives being started through PATH or a symlink. */
static char *mpcrun_dir(void)
{
    char buf[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    char *path = NULL, *slash;

    if (len > 0) {
        buf[len] = '\0';
        path = strdup(buf);
    } else if (progname_for_info) {
        char *found = find_program(progname_for_info);

        path = found ? realpath(found, NULL) : NULL;
        free(found);
    }
    if (!path || !(slash = strrchr(path, '/'))) {
        free(path);
        return NULL;
    }
    *slash = '\0';
    return path;
}

static _Noreturn void run_show_config(const struct job_config *cfg)
{
    char *dir, *info;

    if (cfg->prog_argv) die("%s: --show-config does not run a program", cfg->prog_argv[0]);
    dir = mpcrun_dir();
    if (!dir) die("--show-config: cannot determine the directory of mpcrun");
    info = join_path(dir, strlen(dir), INFO_RELPATH + 1);
    free(dir);
    if (!is_executable_file(info)) die("--show-config: %s not found (mpcrt-info is not installed)", info);

    /* Let mpcrt-info show the settings given on this command line, if any. */
    export_job_env(cfg);
    execv(info, (char *[]){"mpcrt-info", NULL});
    die("--show-config: cannot execute %s: %s", info, strerror(errno));
}

/*
 * Inherited "ignore" dispositions (e.g. nohup) are honoured: such signals are
 * neither waited for nor forwarded, and the child inherits the ignore.
 */
static void build_wait_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    for (size_t i = 0; i < NUM_FORWARDED; i++) {
        struct sigaction old;

        if (sigaction(forwarded_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaddset(set, forwarded_signals[i]);
    }
}

/*
 * If SIGCHLD were inherited as SIG_IGN the kernel would reap the child for
 * us and waitpid() would fail, so force the default disposition.
 */
static void reset_sigchld(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
}

static _Noreturn void exec_child(char **argv, const char *path, const sigset_t *orig_mask)
{
    /*
     * A process group of its own lets timeout and forwarded signals reach
     * every process the program starts, not just the first one.
     */
    setpgid(0, 0);
    sigprocmask(SIG_SETMASK, orig_mask, NULL);
    /* execvp() with a path containing '/' does no search but keeps the
     * glibc fallback of running shebang-less scripts with /bin/sh. */
    execvp(path, argv);
    fprintf(stderr, "mpcrun: %s: cannot execute: %s\n", argv[0], strerror(errno));
    _exit(EXIT_EXEC_FAILED);
}

static struct timespec deadline_after(long long seconds)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_sec += (time_t)seconds;
    return t;
}

/* Returns false once DEADLINE has passed. */
static bool time_left(const struct timespec *deadline, struct timespec *left)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    left->tv_sec = deadline->tv_sec - now.tv_sec;
    left->tv_nsec = deadline->tv_nsec - now.tv_nsec;
    if (left->tv_nsec < 0) {
        left->tv_sec--;
        left->tv_nsec += 1000000000L;
    }
    return left->tv_sec > 0 || (left->tv_sec == 0 && left->tv_nsec > 0);
}

/*
 * Synchronous signal handling: all interesting signals stay blocked and are
 * collected here, so there are no handlers, no EINTR races and no lost
 * SIGCHLD.  Returns the signal number, or 0 once DEADLINE (if any) passed.
 */
static int wait_for_signal(const sigset_t *set, const struct timespec *deadline)
{
    for (;;) {
        struct timespec left;
        int sig;

        if (!deadline) {
            sig = sigwaitinfo(set, NULL);
        } else {
            if (!time_left(deadline, &left)) return 0;
            sig = sigtimedwait(set, NULL, &left);
        }
        if (sig > 0) return sig;
        /* EINTR (e.g. after SIGCONT) and EAGAIN both just re-check time. */
        if (errno != EINTR && errno != EAGAIN) return 0;
    }
}

/*
 * Uses WNOWAIT so the exited child stays a zombie: its pid, and therefore
 * its process group id, cannot be reused while we still signal the group.
 */
static bool child_has_exited(pid_t child)
{
    siginfo_t info;

    for (;;) {
        info.si_pid = 0;
        if (waitid(P_PID, (id_t)child, &info, WEXITED | WNOHANG | WNOWAIT) == 0) return info.si_pid == child;
        if (errno != EINTR) return true; /* ECHILD: nothing left to wait for */
    }
}

static int reap_child(pid_t child)
{
    int status;

    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return status;
}

/* Signals go to the whole group; ESRCH just means it is already gone. */
static void signal_job(pid_t child, int sig)
{
    kill(-child, sig);
}

/*
 * Waits for the child, forwarding signals and enforcing the timeout: SIGTERM
 * to the group when it expires, SIGKILL after a grace period.  Returns the
 * raw wait status (or -1) and sets *timed_out.
 */
static int supervise(pid_t child, const sigset_t *waitset, long long timeout, bool *timed_out)
{
    enum { RUNNING, TERM_SENT, KILL_SENT } phase = RUNNING;
    struct timespec deadline = {0, 0};
    bool has_deadline = timeout > 0;

    if (has_deadline) deadline = deadline_after(timeout);
    *timed_out = false;

    while (!child_has_exited(child)) {
        int sig = wait_for_signal(waitset, has_deadline ? &deadline : NULL);

        if (sig > 0) {
            if (sig != SIGCHLD) signal_job(child, sig);
        } else if (phase == RUNNING) {
            *timed_out = true;
            signal_job(child, SIGTERM);
            phase = TERM_SENT;
            deadline = deadline_after(KILL_GRACE_SECONDS);
        } else if (phase == TERM_SENT) {
            signal_job(child, SIGKILL);
            phase = KILL_SENT;
            has_deadline = false;
        }
    }
    /* The program may have exited on SIGTERM but left children behind. */
    if (*timed_out) signal_job(child, SIGKILL);
    return reap_child(child);
}

static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
        {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].sig == sig) return names[i].name;
    return "unknown signal";
}

static int exit_code_for(int status, bool timed_out, long long timeout)
{
    if (timed_out) {
        fprintf(stderr, "mpcrun: job timed out after %lld s\n", timeout);
        return EXIT_TIMEOUT;
    }
    if (status == -1) {
        fprintf(stderr, "mpcrun: lost track of the rank process: %s\n", strerror(errno));
        return EXIT_EXEC_FAILED;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);

        fprintf(stderr, "mpcrun: rank process killed by signal %d (%s)\n", sig, signal_name(sig));
        return EXIT_SIGNAL_BASE + sig;
    }
    return WEXITSTATUS(status);
}

/*
 * Note: the child runs in its own process group, i.e. in the background as
 * far as the terminal is concerned.  Output is fine, but a program reading
 * from the terminal is stopped by SIGTTIN; redirect stdin for such programs.
 */
static int run_command(char **argv, const char *path, long long timeout)
{
    sigset_t waitset, orig_mask;
    bool timed_out;
    pid_t child;
    int status;

    reset_sigchld();
    build_wait_set(&waitset);
    /* Blocked before fork() so that no signal or SIGCHLD can slip through. */
    sigprocmask(SIG_BLOCK, &waitset, &orig_mask);

    child = fork();
    if (child < 0) die("cannot start %s: fork: %s", argv[0], strerror(errno));
    if (child == 0) exec_child(argv, path, &orig_mask);

    /* Also in the parent, so the group exists before we ever signal it. */
    setpgid(child, child);
    status = supervise(child, &waitset, timeout, &timed_out);
    return exit_code_for(status, timed_out, timeout);
}

/* srun starts the processes; its exit code (the worst task's) is the job's. */
static int run_slurm_job(const struct job_config *cfg)
{
    char *srun = find_program("srun");
    if (!srun) die("--launcher=slurm: srun not found in PATH");
    long long cores_per_task = cfg->cores_per_rank > 0 ? cfg->cores_per_rank * (cfg->ranks / cfg->procs) : 0;
    slurm_job_t job = {cfg->ranks, cfg->procs, cfg->nodes_given ? cfg->nodes : 0, cores_per_task,
                       cfg->tag_output, cfg->oversubscribe, cfg->prog_argv};
    char **argv = slurm_srun_argv(&job);
    if (!argv) die("out of memory");
    int status = run_command(argv, srun, cfg->timeout);
    slurm_free_argv(argv);
    free(srun);
    return status;
}

int main(int argc, char **argv)
{
    struct job_config cfg = {.procs = 1, .nodes = 1};
    char *path;

    progname_for_info = argv[0];
    parse_args(argc, argv, &cfg);
    resolve_timeout(&cfg);
    if (cfg.show_config) run_show_config(&cfg);

    validate_job(&cfg);
    path = find_program(cfg.prog_argv[0]);
    if (!path) die("%s: program not found", cfg.prog_argv[0]);
    export_job_env(&cfg);
    int status;
    if (cfg.use_slurm) {
        status = run_slurm_job(&cfg);
    } else if (cfg.procs > 1) {
        procs_job_t job = {cfg.ranks,     cfg.procs, cfg.cores_per_rank, cfg.timeout, cfg.tag_output,
                           cfg.keep_going, cfg.prog_argv, path};
        status = procs_run(&job);
    } else {
        status = run_command(cfg.prog_argv, path, cfg.timeout);
    }
    free(path);
    return status;
}
