/* Privatization runtime (priv.c): per-rank and per-thread copies of the data of modules compiled with
 * mpcc -fmpc-privatize. Used by the thread-mode job (one task copy per rank) and by the OpenMP layer
 * (one ULT-level copy per rank and OpenMP thread number). Declared in sched.h for the layers above. */
#ifndef MPCRT_THREADS_PRIV_H
#define MPCRT_THREADS_PRIV_H

#include "sched.h"

#endif
