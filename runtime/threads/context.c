/* Builds the first frame of a context for mpcrt_ctx_switch (layout fixed by context_x86_64.S). */
#include "context.h"

#include <stdint.h>
#include <string.h>

void mpcrt_ctx_trampoline(void);

/* Set by every switch on this kernel thread, cleared by the return thunk that took the indirect path
 * (context_x86_64.S): whether the return-stack predictor may hold another ULT's return addresses. */
__attribute__((visibility("hidden"), tls_model("initial-exec"))) __thread unsigned char mpcrt_ctx_switched;

void *mpcrt_ctx_make(void *stack_top, void (*entry)(void *), void *arg)
{
    uintptr_t top = (uintptr_t)stack_top & ~(uintptr_t)15;
    /* The return slot sits at top-24 so that the trampoline's `call` runs with rsp 16-byte aligned. */
    uint64_t *frame = (uint64_t *)(top - 80);
    uint32_t mxcsr;
    uint16_t fpucw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    memset(frame, 0, 80);
    memcpy(&frame[0], &mxcsr, sizeof mxcsr); /* new contexts inherit the creator's FP environment */
    memcpy((char *)&frame[0] + 4, &fpucw, sizeof fpucw);
    frame[1] = 0;                          /* r15 */
    frame[2] = 0;                          /* r14 */
    frame[3] = (uint64_t)(uintptr_t)entry; /* r13 */
    frame[4] = (uint64_t)(uintptr_t)arg;   /* r12 */
    frame[5] = 0;                          /* rbx */
    frame[6] = 0;                          /* rbp: ends frame-pointer backtraces */
    frame[7] = (uint64_t)(uintptr_t)mpcrt_ctx_trampoline;
    return frame;
}
