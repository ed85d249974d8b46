/* MPI_INFO_ENV and MPI_Info_create_env: how the program was started (MPI 4.0 section 11.2.3). The keys
 * mpcrt knows: command, argv, maxprocs, host, arch, wdir. MPI_INFO_ENV is one object for every rank of the
 * process, so it is read-only (MPI_Info_dup gives a modifiable copy). */
#include "info.h"
#include "../../threads/sched.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static mpcrt_info_t env_info;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

__attribute__((constructor)) static void register_env(void)
{
    mpcrt_object_init(&env_info.obj, MPCRT_OBJ_INFO, NULL);
    env_info.read_only = true;
    mpcrt_handle_register_predefined(&env_info.obj, MPCRT_OBJ_INFO, MPI_INFO_ENV);
}

/* Fills info with the environment keys; argv[0] is the command. Keys that cannot be known are left out. */
static void fill(mpcrt_info_t *info, int argc, char **argv)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    if (argc > 0 && argv && argv[0])
        mpcrt_info_set(info, "command", argv[0]);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 1; i < argc && argv && argv[i]; i++) {
        int n = snprintf(buf + used, sizeof buf - used, "%s%s", i > 1 ? " " : "", argv[i]);
        if (n < 0 || (size_t)n >= sizeof buf - used)
            break; /* longer than MPI_MAX_INFO_VAL: the arguments that fit */
        used += (size_t)n;
    }
    if (argc > 1)
        mpcrt_info_set(info, "argv", buf);
    snprintf(buf, sizeof buf, "%d", mpcrt_job_size());
    mpcrt_info_set(info, "maxprocs", buf);
    if (gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = '\0';
        mpcrt_info_set(info, "host", buf);
    }
    struct utsname u;
    if (uname(&u) == 0)
        mpcrt_info_set(info, "arch", u.machine);
    if (getcwd(buf, sizeof buf))
        mpcrt_info_set(info, "wdir", buf);
}

/* The process's command line, from /proc (MPI_INFO_ENV may be read before MPI_Init, and the ranks of a
 * process share it). */
static void fill_env(void)
{
    char *cmdline = NULL;
    size_t size = 0, len = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        char chunk[4096];
        size_t n;
        while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
            char *grown = realloc(cmdline, size + n + 1);
            if (!grown)
                break;
            cmdline = grown;
            memcpy(cmdline + size, chunk, n);
            size += n;
        }
        fclose(f);
    }
    int argc = 0;
    char **argv = NULL;
    if (cmdline) {
        cmdline[size] = '\0';
        for (len = 0; len < size; len += strlen(cmdline + len) + 1)
            argc++;
        argv = calloc((size_t)argc + 1, sizeof *argv);
        int i = 0;
        for (len = 0; argv && len < size; len += strlen(cmdline + len) + 1)
            argv[i++] = cmdline + len;
    }
    fill(&env_info, argv ? argc : 0, argv);
    free(argv);
    free(cmdline);
}

mpcrt_info_t *mpcrt_info_get(MPI_Info handle)
{
    mpcrt_info_t *info = (mpcrt_info_t *)mpcrt_handle_lookup(MPCRT_OBJ_INFO, handle);
    if (info == &env_info)
        pthread_once(&env_once, fill_env);
    return info;
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    static const char fn[] = "MPI_Info_create_env";
    if (!info)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "info is NULL");
    mpcrt_info_t *made = mpcrt_info_new(NULL);
    if (made)
        fill(made, argc, argv);
    int rc = made ? mpcrt_info_publish(made, info) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "no memory for an info object");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_create_env)
