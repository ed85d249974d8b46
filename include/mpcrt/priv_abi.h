/* The privatization ABI: the one header shared by the GCC plugin (gcc-plugin/) and the runtime
 * (runtime/threads/priv*.c). It names the sections the plugin emits and the per-module descriptor that
 * each module (executable or shared library) registers at start-up. Changing anything here changes the
 * ABI: bump MPCRT_PRIV_ABI_VERSION. */
#ifndef MPCRT_PRIV_ABI_H
#define MPCRT_PRIV_ABI_H

#include <stdint.h>

#define MPCRT_PRIV_ABI_VERSION 1

/* Sections written by the plugin (linker-script fragment mpc_priv.ld keeps each group contiguous). */
#define MPCRT_PRIV_SECTION "mpc_priv"             /* task-level (per rank) data; COMDAT: "mpc_priv.<sym>" */
#define MPCRT_PRIV_BSS_SECTION ".bss.mpc_privz"   /* task-level zero-initialized data (@nobits) */
#define MPCRT_ULT_SECTION "mpc_ult"               /* ex-__thread and threadprivate data, per ULT */
#define MPCRT_PRIV_REL_SECTION "mpc_priv_rel"     /* addresses of task slots that hold task addresses */
#define MPCRT_ULT_REL_SECTION "mpc_ult_rel"       /* addresses of ULT slots that hold task addresses */
#define MPCRT_PRIV_CHK_SECTION "mpc_priv_chk"     /* addresses of task-level externs used by a TU */
#define MPCRT_ULT_CHK_SECTION "mpc_ult_chk"       /* addresses of ULT-level externs used by a TU */
#define MPCRT_PRIV_INIT_SECTION "mpc_priv_init"   /* C++ dynamic initializers to run once per rank */

/* Thread-local slots read by privatized code (initial-exec TLS, defined by libmpcrt). */
#define MPCRT_PRIV_DELTA_SYMBOL "__mpc_priv_delta"
#define MPCRT_ULT_DELTA_SYMBOL "__mpc_ult_delta"

/* What mpc_module.o registers for its module, from symbols defined by mpc_priv.ld. Every range is
 * [begin, end); an empty or absent range has begin == end (possibly both NULL). */
typedef struct mpcrt_priv_module {
    uint32_t abi_version;
    uint32_t reserved;
    char *task_begin, *task_end; /* mpc_priv followed by the zero-initialized part */
    char *ult_begin, *ult_end;
    uintptr_t *task_rel_begin, *task_rel_end;
    uintptr_t *ult_rel_begin, *ult_rel_end;
    uintptr_t *task_chk_begin, *task_chk_end;
    uintptr_t *ult_chk_begin, *ult_chk_end;
    void (**init_begin)(void), (**init_end)(void);
    struct mpcrt_priv_module *next; /* owned by the runtime */
} mpcrt_priv_module_t;

#ifdef __cplusplus
extern "C" {
#endif
/* Defined by libmpcrt; called by each module's constructor (priority 101). */
void mpcrt_priv_register_module(mpcrt_priv_module_t *module);
#ifdef __cplusplus
}
#endif

#endif
