/* Core discovery with hwloc: a core belongs to us when its cpuset meets the process binding (what
 * taskset, cgroups, Slurm or mpcrun gave us); a VP is bound to the PUs of its core that we may use. */
#include "topology.h"
#include "log.h"

#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdlib.h>

static hwloc_topology_t topology;
static hwloc_bitmap_t *core_sets;
static int ncores;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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
