/* The cores given to this process, discovered with hwloc, and binding of kernel threads to them. */
#ifndef MPCRT_THREADS_TOPOLOGY_H
#define MPCRT_THREADS_TOPOLOGY_H

/* Loads the topology once; returns the number of cores in the process's binding (at least 1). */
int mpcrt_topo_init(void);
int mpcrt_topo_ncores(void);
/* Binds the calling kernel thread to core index `core` (0 .. ncores-1); 0 or a negative errno. */
int mpcrt_topo_bind_self(int core);
/* Logical index of the hardware object of type `name` (hwloc's type names) holding core `core`; -1 if
 * the name is unknown or the machine has no such level. */
int mpcrt_topo_resource_index(int core, const char *name);
void mpcrt_topo_finalize(void);

#endif
