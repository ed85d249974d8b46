/* mpc_module.o: linked by mpcc into every executable and shared library. Registers the module's
 * privatized ranges and tables (symbols defined by mpc_priv.ld, hidden, so each module sees its own)
 * with libmpcrt before any other constructor of the module runs. */
#include "mpcrt/priv_abi.h"

#define RANGE(name) extern char name[] __attribute__((weak, visibility("hidden")))
RANGE(__mpc_priv_begin);
RANGE(__mpc_priv_end);
RANGE(__mpc_ult_begin);
RANGE(__mpc_ult_end);
RANGE(__mpc_priv_rel_begin);
RANGE(__mpc_priv_rel_end);
RANGE(__mpc_ult_rel_begin);
RANGE(__mpc_ult_rel_end);
RANGE(__mpc_priv_chk_begin);
RANGE(__mpc_priv_chk_end);
RANGE(__mpc_ult_chk_begin);
RANGE(__mpc_ult_chk_end);
RANGE(__mpc_priv_init_begin);
RANGE(__mpc_priv_init_end);

static mpcrt_priv_module_t module;

/* ld discards empty output sections and may then place their symbols in any order: an empty range can
 * come out with end < begin. */
#define NORMALIZE(begin, end)                                                                             \
    do {                                                                                                  \
        if ((char *)(end) <= (char *)(begin))                                                             \
            (begin) = (end) = 0;                                                                          \
    } while (0)

__attribute__((constructor(101))) static void mpc_module_register(void)
{
    module.abi_version = MPCRT_PRIV_ABI_VERSION;
    module.task_begin = __mpc_priv_begin;
    module.task_end = __mpc_priv_end;
    module.ult_begin = __mpc_ult_begin;
    module.ult_end = __mpc_ult_end;
    module.task_rel_begin = (uintptr_t *)__mpc_priv_rel_begin;
    module.task_rel_end = (uintptr_t *)__mpc_priv_rel_end;
    module.ult_rel_begin = (uintptr_t *)__mpc_ult_rel_begin;
    module.ult_rel_end = (uintptr_t *)__mpc_ult_rel_end;
    module.task_chk_begin = (uintptr_t *)__mpc_priv_chk_begin;
    module.task_chk_end = (uintptr_t *)__mpc_priv_chk_end;
    module.ult_chk_begin = (uintptr_t *)__mpc_ult_chk_begin;
    module.ult_chk_end = (uintptr_t *)__mpc_ult_chk_end;
    module.init_begin = (void (**)(void))__mpc_priv_init_begin;
    module.init_end = (void (**)(void))__mpc_priv_init_end;
    NORMALIZE(module.task_begin, module.task_end);
    NORMALIZE(module.ult_begin, module.ult_end);
    NORMALIZE(module.task_rel_begin, module.task_rel_end);
    NORMALIZE(module.ult_rel_begin, module.ult_rel_end);
    NORMALIZE(module.task_chk_begin, module.task_chk_end);
    NORMALIZE(module.ult_chk_begin, module.ult_chk_end);
    NORMALIZE(module.init_begin, module.init_end);
    if (module.task_begin || module.ult_begin || module.task_chk_begin || module.ult_chk_begin)
        mpcrt_priv_register_module(&module);
}
