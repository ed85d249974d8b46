/* The table of every runtime tunable and the code that reads it from the environment. */
#include "config.h"
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    mpcrt_config_type_t type;
    const char *default_value;
    const char *doc;
    /* Loaded value. */
    long int_value;
    const char *str_value;
    bool is_set;
} cfg_entry_t;

static cfg_entry_t table[MPCRT_CFG_COUNT] = {
    [MPCRT_CFG_RANKS_PER_PROC] = {"MPCRT_RANKS_PER_PROC", MPCRT_CONFIG_INT, "1",
                                  "MPI ranks (user-level threads) in this process; set by mpcrun -n/-p"},
    [MPCRT_CFG_NUM_PROCS] = {"MPCRT_NUM_PROCS", MPCRT_CONFIG_INT, "1",
                             "processes in the job; set by mpcrun -p"},
    [MPCRT_CFG_CORES_PER_RANK] = {"MPCRT_CORES_PER_RANK", MPCRT_CONFIG_INT, "0",
                                  "cores owned by each rank (mpcrun -c); 0 = ranks share all cores"},
    [MPCRT_CFG_OVERSUBSCRIBE] = {"MPCRT_OVERSUBSCRIBE", MPCRT_CONFIG_BOOL, "0",
                                 "allow ranks x cores-per-rank to exceed the cores (mpcrun --oversubscribe)"},
    [MPCRT_CFG_JOB_CORES] =
        {"MPCRT_JOB_CORES", MPCRT_CONFIG_INT, "0",
         "cores the job may use on this node (set by mpcrun --oversubscribe); 0 = the online cores"},
    [MPCRT_CFG_VPS] = {"MPCRT_VPS", MPCRT_CONFIG_INT, "0",
                       "virtual processors (kernel threads) to start; 0 = one per core given to the process"},
    [MPCRT_CFG_WAIT_POLICY] =
        {"MPCRT_WAIT_POLICY", MPCRT_CONFIG_STRING, "passive",
         "idle VPs: 'active' spins forever, 'passive' backs off then sleeps in the kernel"},
    [MPCRT_CFG_COLLAB_POLL] = {"MPCRT_COLLAB_POLL", MPCRT_CONFIG_BOOL, "1",
                               "collaborative polling: idle VPs and every waiter progress for all ranks (0: "
                               "each rank progresses its own messages in its waits only, for comparison)"},
    [MPCRT_CFG_RANK_STACK] = {"MPCRT_RANK_STACK", MPCRT_CONFIG_SIZE, "8M",
                              "stack size of rank ULTs (suffix K, M, G); only touched pages use memory"},
    [MPCRT_CFG_ULT_STACK] = {"MPCRT_ULT_STACK", MPCRT_CONFIG_SIZE, "256K",
                             "default stack size of other ULTs (suffix K, M, G)"},
    [MPCRT_CFG_STACK_GUARD] = {"MPCRT_STACK_GUARD", MPCRT_CONFIG_BOOL, "1",
                               "guard page below each ULT stack (0: a canary word checked at exit instead)"},
    [MPCRT_CFG_SPIN_ROUNDS] = {"MPCRT_SPIN_ROUNDS", MPCRT_CONFIG_INT, "2000",
                               "upper bound of the adaptive spin of wait_until before a ULT parks"},
    [MPCRT_CFG_BIASED_LOCKS] = {"MPCRT_BIASED_LOCKS", MPCRT_CONFIG_BOOL, "1",
                                "MPI match locks biased to the VP that takes them first, which then takes "
                                "them without an atomic exchange (0: always the exchange, for comparison)"},
    [MPCRT_CFG_BIND] = {"MPCRT_BIND", MPCRT_CONFIG_BOOL, "1", "bind each VP to its core"},
    [MPCRT_CFG_FIRST_CPU] = {"MPCRT_FIRST_CPU", MPCRT_CONFIG_INT, "0",
                             "OS index of a CPU of the process whose core gets VP 0 (the next cores follow, "
                             "wrapping); set by mpcrun when processes share cores; unset: the first core"},
    [MPCRT_CFG_EAGER_LIMIT] =
        {"MPCRT_EAGER_LIMIT", MPCRT_CONFIG_SIZE, "16K",
         "largest message copied into an eager cell when its receive is not posted yet"},
    [MPCRT_CFG_CONTEXT_IDS] = {"MPCRT_CONTEXT_IDS", MPCRT_CONFIG_INT, "0",
                               "context ids each process may hand out, two per communicator it creates "
                               "(ids are not reused); 0 = its whole share, about 2^31 / processes"},
    [MPCRT_CFG_NBC_PROGRESS] = {"MPCRT_NBC_PROGRESS", MPCRT_CONFIG_STRING, "free",
                                "where progress ULTs of collective schedules run: free (another core than "
                                "the rank's), same (the rank's core), dedicated (the last core), none (only "
                                "waiting and idle threads progress)"},
    [MPCRT_CFG_NBC_PRIORITY] = {"MPCRT_NBC_PRIORITY", MPCRT_CONFIG_INT, "10",
                                "base priority (0-20) of progress ULTs; they run at 20 while work is ready"},
    [MPCRT_CFG_COLL_ALGORITHM] = {"MPCRT_COLL_ALGORITHM", MPCRT_CONFIG_STRING, "",
                                  "algorithm overrides of the schedule-based collectives, comma-separated "
                                  "collective=algorithm (bcast=knomial, allreduce=recursive_doubling, ...; "
                                  "see runtime/mpi/nbc/README.md)"},
    [MPCRT_CFG_RAILS] = {"MPCRT_RAILS", MPCRT_CONFIG_STRING, "auto",
                         "rails between processes, in order of preference (comma-separated: shm, tcp); "
                         "auto: shm, and tcp too when the job spans several nodes"},
    [MPCRT_CFG_SHM_CELLS] = {"MPCRT_SHM_CELLS", MPCRT_CONFIG_INT, "256",
                             "cells in each process's shared-memory receive queue (process mode)"},
    [MPCRT_CFG_SHM_CELL_SIZE] = {"MPCRT_SHM_CELL_SIZE", MPCRT_CONFIG_SIZE, "8K",
                                 "bytes per shared-memory cell: larger messages go by rendezvous"},
    [MPCRT_CFG_SHM_CMA] = {"MPCRT_SHM_CMA", MPCRT_CONFIG_BOOL, "1",
                           "rendezvous may read the sender's memory by process_vm_readv (0: fragments only)"},
    [MPCRT_CFG_SHM_CMA_MIN] =
        {"MPCRT_SHM_CMA_MIN", MPCRT_CONFIG_SIZE, "1G",
         "rendezvous of at least this size are read by process_vm_readv at once; smaller "
         "ones are pushed by the sender in fragments through the cells (both cores "
         "copy), and read only when the sender does not push them"},
    [MPCRT_CFG_TCP_IF] = {"MPCRT_TCP_IF", MPCRT_CONFIG_STRING, "",
                          "interface the tcp rail listens on; empty = the first non-loopback IPv4 one"},
    [MPCRT_CFG_NETNS] = {"MPCRT_NETNS", MPCRT_CONFIG_STRING, "",
                         "network namespace (a /run/netns path) the tcp rail's sockets are made in (tests)"},
    [MPCRT_CFG_DEBUG] = {"MPCRT_DEBUG", MPCRT_CONFIG_STRING, "",
                         "comma-separated debug channels to print on stderr (sched, stack, all)"},
    [MPCRT_CFG_SHOW_CONFIG] = {"MPCRT_SHOW_CONFIG", MPCRT_CONFIG_BOOL, "0",
                               "print these settings on stderr when the runtime starts"},
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static bool parse_size(const char *text, long *out)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || value < 0)
        return false;
    switch (*end) {
    case 'k': case 'K': value <<= 10; end++; break;
    case 'm': case 'M': value <<= 20; end++; break;
    case 'g': case 'G': value <<= 30; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    *out = value;
    return *end == '\0';
}

static bool parse_value(cfg_entry_t *e, const char *text)
{
    char *end;
    switch (e->type) {
    case MPCRT_CONFIG_INT:
        errno = 0;
        e->int_value = strtol(text, &end, 10);
        return !errno && end != text && *end == '\0' && e->int_value >= 0;
    case MPCRT_CONFIG_SIZE:
        return parse_size(text, &e->int_value);
    case MPCRT_CONFIG_BOOL:
        if (!strcmp(text, "1") || !strcasecmp(text, "true") || !strcasecmp(text, "yes")) {
            e->int_value = 1;
            return true;
        }
        if (!strcmp(text, "0") || !strcasecmp(text, "false") || !strcasecmp(text, "no")) {
            e->int_value = 0;
            return true;
        }
        return false;
    case MPCRT_CONFIG_STRING:
        e->str_value = text;
        return true;
    }
    return false;
}

static void load(void)
{
    for (int i = 0; i < MPCRT_CFG_COUNT; i++) {
        cfg_entry_t *e = &table[i];
        bool ok = parse_value(e, e->default_value);
        MPCRT_ASSERT(ok, "default of a tunable parses");
        const char *text = getenv(e->name);
        if (!text)
            continue;
        if (parse_value(e, text)) {
            e->is_set = true;
        } else {
            fprintf(stderr, "mpcrt: ignoring %s=%s (not a valid value; using %s)\n", e->name, text,
                    e->default_value);
            parse_value(e, e->default_value);
        }
    }
    cfg_entry_t *policy = &table[MPCRT_CFG_WAIT_POLICY];
    if (strcmp(policy->str_value, "active") && strcmp(policy->str_value, "passive")) {
        fprintf(stderr, "mpcrt: ignoring MPCRT_WAIT_POLICY=%s (expected active or passive)\n",
                policy->str_value);
        policy->str_value = policy->default_value;
    }
}

void mpcrt_config_load(void)
{
    pthread_once(&load_once, load);
}

long mpcrt_config_int(mpcrt_config_id_t id)
{
    mpcrt_config_load();
    return table[id].int_value;
}

const char *mpcrt_config_str(mpcrt_config_id_t id)
{
    mpcrt_config_load();
    return table[id].str_value;
}

bool mpcrt_config_is_set(mpcrt_config_id_t id)
{
    mpcrt_config_load();
    return table[id].is_set;
}

void mpcrt_config_print(FILE *out)
{
    mpcrt_config_load();
    for (int i = 0; i < MPCRT_CFG_COUNT; i++) {
        const cfg_entry_t *e = &table[i];
        const char *shown = e->is_set ? getenv(e->name) : e->default_value;
        fprintf(out, "%-22s = %-8s %-22s %s\n", e->name, shown[0] ? shown : "''",
                e->is_set ? "(from the environment)" : "(default)", e->doc);
    }
}

int mpcrt_config_count(void)
{
    return MPCRT_CFG_COUNT;
}

void mpcrt_config_describe(mpcrt_config_id_t id, mpcrt_config_desc_t *out)
{
    MPCRT_ASSERT((unsigned)id < MPCRT_CFG_COUNT, "config index in range");
    const cfg_entry_t *e = &table[id];
    *out = (mpcrt_config_desc_t){e->name, e->type, e->default_value, e->doc};
}
