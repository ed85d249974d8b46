/* Debug output and invariant checks shared by the whole runtime. The runtime prints nothing unless asked
 * (MPCRT_DEBUG=channel,...) or unless something is wrong: test harnesses compare output. */
#ifndef MPCRT_THREADS_LOG_H
#define MPCRT_THREADS_LOG_H

#include <stdbool.h>

typedef enum { MPCRT_LOG_SCHED = 1, MPCRT_LOG_STACK = 2, MPCRT_LOG_MPI = 4, MPCRT_LOG_OMP = 8 } mpcrt_log_channel_t;

bool mpcrt_log_enabled(mpcrt_log_channel_t channel);
void mpcrt_log(mpcrt_log_channel_t channel, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report a broken invariant (a runtime bug, never a user error) and abort. */
_Noreturn void mpcrt_fatal(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define MPCRT_ASSERT(cond, invariant)                                                                     \
    do {                                                                                                  \
        if (__builtin_expect(!(cond), 0))                                                                 \
            mpcrt_fatal(__FILE__, __LINE__, "invariant violated: %s (%s)", invariant, #cond);             \
    } while (0)

#endif
