/* Machine contexts: the assembly switch and the frame that starts a new context. */
#ifndef MPCRT_THREADS_CONTEXT_H
#define MPCRT_THREADS_CONTEXT_H

#if !defined(__x86_64__)
#error "mpcrt: the context switch exists for x86-64 only so far (aarch64 is planned)"
#endif

/* Saves the running context's registers on its stack and its stack pointer in *save_sp, then resumes the
 * context whose stack pointer is load_sp. Returns when some other context switches back. */
void mpcrt_ctx_switch(void **save_sp, void *load_sp);

/* Builds the initial frame of a context on a fresh stack (stack_top: one past its highest byte) so that
 * switching to the returned stack pointer calls entry(arg). entry must never return. */
void *mpcrt_ctx_make(void *stack_top, void (*entry)(void *), void *arg);

#endif
