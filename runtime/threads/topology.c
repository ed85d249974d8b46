/* Core discovery with hwloc: a core belongs to us when its cpuset meets the process binding (what
 * taskset, cgroups, Slurm or mpcrun gave us); a VP is bound to the PUs of its core that we may use. */
#include "topology.h"
#include "config.h"
#include "log.h"

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static hwloc_topology_t topology;
static hwloc_bitmap_t *core_sets;
static int ncores;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* VP i is bound to core i (mod the count): when mpcrun gave processes overlapping CPU sets, it names the
 * CPU of this process's own first core, and the list starts there, so that the process's rank (VP 0) and
 * the other processes' ranks run on different cores and the further VPs follow on theirs. */
static void reverse_cores(int from, int to)
{
    for (; from < to; from++, to--) {
        hwloc_bitmap_t t = core_sets[from];
        core_sets[from] = core_sets[to];
        core_sets[to] = t;
    }
}

static void rotate_to_first_cpu(void)
{
    if (!mpcrt_config_is_set(MPCRT_CFG_FIRST_CPU)) /* a value that does not parse was reported, unset */
        return;
    unsigned cpu = (unsigned)mpcrt_config_int(MPCRT_CFG_FIRST_CPU);
    int first = 0;
    while (first < ncores && !hwloc_bitmap_isset(core_sets[first], cpu))
        first++;
    if (first == 0 || first == ncores) /* already first, or not ours: the list stays as it is */
        return;
    /* Rotated left by `first`, in place. */
    reverse_cores(0, first - 1);
    reverse_cores(first, ncores - 1);
    reverse_cores(0, ncores - 1);
}

static int discover(void)
{
    if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0)
        return -ENODEV;
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topology, bound, HWLOC_CPUBIND_PROCESS) != 0)
        hwloc_bitmap_copy(bound, hwloc_topology_get_allowed_cpuset(topology));
    int depth = hwloc_get_type_depth(topology, HWLOC_OBJ_CORE);
    hwloc_obj_type_t unit = depth == HWLOC_TYPE_DEPTH_UNKNOWN ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
    int total = hwloc_get_nbobjs_by_type(topology, unit);
    core_sets = calloc((size_t)(total > 0 ? total : 1), sizeof *core_sets);
    for (int i = 0; i < total; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_type(topology, unit, (unsigned)i);
        if (!hwloc_bitmap_intersects(obj->cpuset, bound))
            continue;
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        hwloc_bitmap_and(set, obj->cpuset, bound);
        core_sets[ncores++] = set;
    }
    if (ncores == 0) /* binding unknown to hwloc: behave as one unbound core */
        core_sets[ncores++] = hwloc_bitmap_dup(bound);
    rotate_to_first_cpu();
    hwloc_bitmap_free(bound);
    mpcrt_log(MPCRT_LOG_SCHED, "%d core(s) available", ncores);
    return 0;
}

int mpcrt_topo_init(void)
{
    pthread_mutex_lock(&lock);
    int rc = topology ? 0 : discover();
    pthread_mutex_unlock(&lock);
    return rc ? rc : ncores;
}

int mpcrt_topo_ncores(void)
{
    return ncores;
}

int mpcrt_topo_bind_self(int core)
{
    if (core < 0 || core >= ncores)
        return -EINVAL;
    return hwloc_set_cpubind(topology, core_sets[core], HWLOC_CPUBIND_THREAD) == 0 ? 0 : -errno;
}

/* A resource name, exactly (any case): hwloc's type names and MPI's aliases. hwloc_type_sscanf is not
 * used because it accepts abbreviations ("no" is a NUMA node), and a typo must not name a resource. */
static bool parse_resource(const char *name, hwloc_obj_type_t *type, unsigned *cache_depth)
{
    static const struct {
        const char *name;
        hwloc_obj_type_t type;
    } names[] = {{"machine", HWLOC_OBJ_MACHINE}, {"package", HWLOC_OBJ_PACKAGE}, {"socket", HWLOC_OBJ_PACKAGE},
                 {"numanode", HWLOC_OBJ_NUMANODE}, {"numa", HWLOC_OBJ_NUMANODE},   {"core", HWLOC_OBJ_CORE},
                 {"pu", HWLOC_OBJ_PU},             {"hwthread", HWLOC_OBJ_PU}};
    *cache_depth = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcasecmp(name, names[i].name) == 0) {
            *type = names[i].type;
            return true;
        }
    /* l<N>cache, l<N>ucache, l<N>dcache: the level-N cache holding data; l<N>icache: instructions */
    char kind[8] = "";
    int n = 0;
    if (sscanf(name, "%*1[lL]%u%7s%n", cache_depth, kind, &n) != 2 || (size_t)n != strlen(name) ||
        *cache_depth < 1 || *cache_depth > 5)
        return false;
    bool instruction = strcasecmp(kind, "icache") == 0;
    if (!instruction && strcasecmp(kind, "cache") && strcasecmp(kind, "ucache") && strcasecmp(kind, "dcache"))
        return false;
    if (instruction && *cache_depth > 3) /* hwloc knows instruction caches of levels 1 to 3 */
        return false;
    *type = instruction ? HWLOC_OBJ_L1ICACHE + (*cache_depth - 1) : HWLOC_OBJ_L1CACHE + (*cache_depth - 1);
    return true;
}

/* The hardware object of resource type `name` holding core `core`: its logical index, or -1 (unknown
 * name, no such level). */
int mpcrt_topo_resource_index(int core, const char *name)
{
    if (!topology || core < 0 || core >= ncores || !name)
        return -1;
    hwloc_obj_type_t type;
    unsigned cache_depth;
    if (!parse_resource(name, &type, &cache_depth))
        return -1;
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology, (unsigned)hwloc_bitmap_first(core_sets[core]));
    if (!pu)
        return -1;
    if (type == HWLOC_OBJ_NUMANODE) { /* memory objects hang beside the CPU tree: match by cpuset */
        hwloc_obj_t node = NULL;
        while ((node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, node)))
            if (hwloc_bitmap_isset(node->cpuset, pu->os_index))
                return (int)node->logical_index;
        return -1;
    }
    for (hwloc_obj_t obj = pu; obj; obj = obj->parent) {
        if (obj->type != type)
            continue;
        return (int)obj->logical_index;
    }
    return -1;
}

void mpcrt_topo_finalize(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ncores; i++)
        hwloc_bitmap_free(core_sets[i]);
    free(core_sets);
    core_sets = NULL;
    ncores = 0;
    if (topology)
        hwloc_topology_destroy(topology);
    topology = NULL;
    pthread_mutex_unlock(&lock);
}
