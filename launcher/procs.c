/* Multi-process jobs: one child per process, each told its place by the PMIx server mpcrun hosts; output
 * forwarded (prefixed by rank with --tag-output), signals forwarded, and any abnormal end (a signal, a
 * non-zero exit or an exit before MPI_Finalize, MPI_Abort) ends the whole job: SIGTERM to every process,
 * SIGKILL one second later, shared-memory objects of the job removed, the failure reported, and the failed
 * process's code becomes mpcrun's. With --on-failure=continue the others go on (the runtime sees the death
 * itself and fails what was pending with the dead ranks) and the job ends when they have. */
#define _GNU_SOURCE
#include "procs.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TERM_GRACE_NS 1000000000L /* SIGTERM, then SIGKILL after this: the job ends within 2 s */

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void rank_label(char *out, size_t size, int proc, long long rpp)
{
    if (rpp == 1)
        snprintf(out, size, "%d", proc);
    else
        snprintf(out, size, "%lld-%lld", proc * rpp, proc * rpp + rpp - 1);
}

/* ------------------------------------------------------------------ --tag-output */

typedef struct {
    proc_state_t *procs;
    int nprocs;
    long long rpp;
} forward_t;

/* Copies every child's output to ours, a line at a time, each line prefixed by the rank that wrote it. */
static void *forward_output(void *arg)
{
    forward_t *f = arg;
    int nfds = 2 * f->nprocs, open_fds = nfds;
    struct pollfd *fds = calloc((size_t)nfds, sizeof *fds);
    char **partial = calloc((size_t)nfds, sizeof *partial);
    size_t *partial_len = calloc((size_t)nfds, sizeof *partial_len);
    if (!fds || !partial || !partial_len)
        return NULL;
    for (int i = 0; i < nfds; i++) {
        fds[i].fd = i % 2 ? f->procs[i / 2].err_fd : f->procs[i / 2].out_fd;
        fds[i].events = POLLIN;
    }
    while (open_fds > 0) {
        if (poll(fds, (nfds_t)nfds, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int i = 0; i < nfds; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[4096];
            ssize_t got = read(fds[i].fd, buf, sizeof buf);
            FILE *to = i % 2 ? stderr : stdout;
            char label[48];
            rank_label(label, sizeof label, i / 2, f->rpp);
            if (got <= 0) {
                if (partial_len[i])
                    fprintf(to, "[%s] %.*s\n", label, (int)partial_len[i], partial[i]);
                fflush(to);
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            char *joined = realloc(partial[i], partial_len[i] + (size_t)got);
            if (!joined)
                continue;
            memcpy(joined + partial_len[i], buf, (size_t)got);
            partial[i] = joined;
            partial_len[i] += (size_t)got;
            size_t start = 0;
            for (size_t k = 0; k < partial_len[i]; k++)
                if (joined[k] == '\n') {
                    fprintf(to, "[%s] %.*s\n", label, (int)(k - start), joined + start);
                    start = k + 1;
                }
            memmove(joined, joined + start, partial_len[i] - start);
            partial_len[i] -= start;
            fflush(to);
        }
    }
    for (int i = 0; i < nfds; i++)
        free(partial[i]);
    free(partial);
    free(partial_len);
    free(fds);
    return NULL;
}

/* ------------------------------------------------------------------ placement */

/* Process p's CPUs: an equal share of ours (P <= CPUs), else CPU p mod CPUs. With -c, a process whose share
 * is smaller than its ranks' cores (--oversubscribe) gets that many CPUs anyway, counted from its own first
 * CPU and wrapping around, so that its ranks still run on distinct CPUs first and its further VPs go to
 * the CPUs the other processes' ranks use (a process's free VP then progresses its computing rank's
 * collectives there while those ranks wait). *first: the OS index of the CPU where the process's VP 0
 * belongs (the runtime's MPCRT_FIRST_CPU), or -1. */
static void place(int proc, int nprocs, long long cores_per_proc, cpu_set_t *out, int *first)
{
    cpu_set_t mine;
    CPU_ZERO(out);
    *first = -1;
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        return;
    int cpus[CPU_SETSIZE], ncpus = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine))
            cpus[ncpus++] = c;
    if (ncpus == 0)
        return;
    int start = nprocs <= ncpus ? proc * ncpus / nprocs : proc % ncpus;
    int share = nprocs <= ncpus ? (proc + 1) * ncpus / nprocs - start : 1;
    if (cores_per_proc > share) {
        int want = cores_per_proc < ncpus ? (int)cores_per_proc : ncpus;
        for (int i = 0; i < want; i++)
            CPU_SET(cpus[(start + i) % ncpus], out);
        *first = cpus[start];
        return;
    }
    for (int i = start; i < start + share; i++)
        CPU_SET(cpus[i], out);
}

/* ------------------------------------------------------------------ clean-up */

/* The runtime names its shared-memory objects /mpcrt.<namespace>.<process>: remove any a killed process
 * left (the runtime unlinks them itself once mapped, so normally there are none). */
static void remove_shm(const char *ns)
{
    char prefix[300];
    snprintf(prefix, sizeof prefix, "mpcrt.%s.", ns);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            char name[512];
            snprintf(name, sizeof name, "/%s", e->d_name);
            shm_unlink(name);
        }
    closedir(d);
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (e->d_type == DT_DIR)
                remove_tree(path);
            else
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

/* ------------------------------------------------------------------ the job */

static const char *describe_signal(int sig)
{
    const char *s = sigabbrev_np(sig);
    return s ? s : "?";
}

/* Why process p ended the job, in one line, and its exit code for mpcrun; 0 if it ended well. */
static int judge(const proc_state_t *p, int proc, long long rpp, bool report)
{
    char label[48];
    rank_label(label, sizeof label, proc, rpp);
    if (atomic_load(&p->aborted)) {
        if (report)
            fprintf(stderr, "mpcrun: rank %s (pid %d) aborted the job with code %d\n", label, (int)p->pid,
                    p->abort_code);
        return p->abort_code ? p->abort_code & 0xff : 1;
    }
    if (!p->exited)
        return 0;
    if (WIFSIGNALED(p->status)) {
        int sig = WTERMSIG(p->status);
        if (report)
            fprintf(stderr, "mpcrun: rank %s (pid %d) was killed by signal %d (SIG%s)\n", label, (int)p->pid,
                    sig, describe_signal(sig));
        return 128 + sig;
    }
    int code = WEXITSTATUS(p->status);
    bool early = atomic_load(&p->connected) && !atomic_load(&p->finalized);
    if (code != 0 && early && report)
        fprintf(stderr, "mpcrun: rank %s (pid %d) exited with code %d before MPI_Finalize\n", label,
                (int)p->pid, code);
    else if (code == 0 && early && report)
        fprintf(stderr, "mpcrun: rank %s (pid %d) exited before MPI_Finalize\n", label, (int)p->pid);
    return code ? code : early ? 1 : 0;
}

/* The error class a fatal error handler exits with when a peer process died (MPI_ERR_PROC_ABORTED). */
#define PEER_ABORTED_EXIT 76

/* p failed only because another process did: when both exits come in the same tick, the job reports the
 * other one, the cause (a loaded machine reaped a crashed rank 1 and rank 0's "peer aborted" together, and
 * the job ended with 76 instead of rank 1's code). */
static bool lost_a_peer(const proc_state_t *p)
{
    return p->exited && WIFEXITED(p->status) && WEXITSTATUS(p->status) == PEER_ABORTED_EXIT;
}

static bool is_failure(const proc_state_t *p)
{
    if (atomic_load(&p->aborted))
        return true;
    if (!p->exited)
        return false;
    if (WIFSIGNALED(p->status))
        return true;
    /* A non-zero code after MPI_Finalize is the program's answer, not a failure of the job. */
    return atomic_load(&p->connected) && !atomic_load(&p->finalized);
}

static void signal_all(proc_state_t *procs, int n, int sig)
{
    for (int i = 0; i < n; i++)
        if (procs[i].pid > 0 && !procs[i].exited)
            kill(procs[i].pid, sig);
}

int procs_run(const procs_job_t *job)
{
    int n = (int)job->procs;
    long long rpp = job->ranks / job->procs;
    char tmpdir[4096], ns[128];
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/mpcrun.%d.XXXXXX", base && *base ? base : "/tmp", (int)getuid());
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "mpcrun: cannot create a temporary directory in %s: %s\n", base ? base : "/tmp",
                strerror(errno));
        return 1;
    }
    /* Unguessable enough that another user cannot predict the job's names. */
    unsigned seed = (unsigned)now_ns() ^ (unsigned)getpid() << 16;
    snprintf(ns, sizeof ns, "mpcrun-%d-%08x", (int)getpid(), rand_r(&seed));

    proc_state_t *procs = calloc((size_t)n, sizeof *procs);
    if (!procs)
        return 1;
    sigset_t waitset, orig;
    sigemptyset(&waitset);
    sigaddset(&waitset, SIGCHLD);
    for (size_t i = 0; i < sizeof forwarded / sizeof *forwarded; i++) {
        struct sigaction old;
        if (sigaction(forwarded[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaddset(&waitset, forwarded[i]);
    }
    /* Blocked before PMIx starts its thread, so that only sigtimedwait below ever takes them. */
    sigprocmask(SIG_BLOCK, &waitset, &orig);
    if (pmix_host_start(tmpdir, ns, procs, n) != 0) {
        remove_tree(tmpdir);
        return 1;
    }
    char rpp_text[32];
    snprintf(rpp_text, sizeof rpp_text, "%lld", rpp);
    setenv("MPCRT_RANKS_PER_PROC", rpp_text, 1);

    int exit_code = 0, started = 0;
    for (int p = 0; p < n; p++) {
        cpu_set_t cpus;
        int first_cpu;
        place(p, n, job->cores_per_rank * rpp, &cpus, &first_cpu);
        if (first_cpu >= 0) {
            char first_text[32];
            snprintf(first_text, sizeof first_text, "%d", first_cpu);
            setenv("MPCRT_FIRST_CPU", first_text, 1);
        } else {
            unsetenv("MPCRT_FIRST_CPU");
        }
        char **env = pmix_host_client_env(p); /* a copy of our environment, MPCRT_FIRST_CPU included */
        int out[2] = {-1, -1}, err[2] = {-1, -1};
        if (!env || (job->tag_output && (pipe(out) != 0 || pipe(err) != 0))) {
            exit_code = 1;
            break;
        }
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "mpcrun: cannot start process %d: fork: %s\n", p, strerror(errno));
            exit_code = 1;
            break;
        }
        if (pid == 0) {
            if (job->tag_output) {
                dup2(out[1], 1);
                dup2(err[1], 2);
                close(out[0]), close(out[1]), close(err[0]), close(err[1]);
            }
            if (CPU_COUNT(&cpus))
                sched_setaffinity(0, sizeof cpus, &cpus);
            sigprocmask(SIG_SETMASK, &orig, NULL);
            execve(job->path, job->prog_argv, env);
            fprintf(stderr, "mpcrun: %s: cannot execute: %s\n", job->prog_argv[0], strerror(errno));
            _exit(127);
        }
        procs[p].pid = pid;
        procs[p].out_fd = job->tag_output ? out[0] : -1;
        procs[p].err_fd = job->tag_output ? err[0] : -1;
        if (job->tag_output)
            close(out[1]), close(err[1]);
        for (char **e = env; *e; e++)
            free(*e);
        free(env);
        started++;
    }

    pthread_t forwarder;
    forward_t fwd = {procs, started, rpp};
    bool forwarding =
        job->tag_output && started == n && pthread_create(&forwarder, NULL, forward_output, &fwd) == 0;

    long long deadline = job->timeout > 0 ? now_ns() + job->timeout * 1000000000LL : 0, kill_at = 0;
    bool ending = exit_code != 0, timed_out = false;
    int failed = -1, running = started;
    if (ending) {
        signal_all(procs, started, SIGTERM);
        kill_at = now_ns() + TERM_GRACE_NS;
    }
    while (running > 0) {
        struct timespec tick = {0, 50 * 1000000L}; /* also the delay to notice an MPI_Abort upcall */
        int sig = sigtimedwait(&waitset, NULL, &tick);
        if (sig > 0 && sig != SIGCHLD)
            signal_all(procs, started, sig);
        pid_t pid;
        int status;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
            for (int p = 0; p < started; p++)
                if (procs[p].pid == pid) {
                    procs[p].exited = true;
                    procs[p].status = status;
                    running--;
                }
        int first = -1;
        for (int p = 0; p < started && failed < 0 && !timed_out; p++)
            if (is_failure(&procs[p]) &&
                (first < 0 || (lost_a_peer(&procs[first]) && !lost_a_peer(&procs[p]))))
                first = p;
        if (first >= 0) {
            failed = first;
            exit_code = judge(&procs[first], first, rpp, true);
        }
        long long now = now_ns();
        if (!ending && deadline && now >= deadline) {
            timed_out = true;
            fprintf(stderr, "mpcrun: job timed out after %lld s\n", job->timeout);
        }
        if (!ending && (timed_out || (failed >= 0 && !job->keep_going))) {
            ending = true;
            signal_all(procs, started, SIGTERM);
            kill_at = now + TERM_GRACE_NS;
        } else if (ending && kill_at && now >= kill_at) {
            signal_all(procs, started, SIGKILL);
            kill_at = 0;
        }
    }
    if (failed < 0 && !timed_out && exit_code == 0)
        for (int p = 0; p < started && !exit_code; p++)
            exit_code = judge(&procs[p], p, rpp, true);
    if (timed_out)
        exit_code = 124;
    if (forwarding)
        pthread_join(forwarder, NULL);
    pmix_host_stop();
    remove_shm(ns);
    remove_tree(tmpdir);
    free(procs);
    return exit_code;
}
