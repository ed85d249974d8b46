/* Debug channels selected by MPCRT_DEBUG, and the fatal-invariant reporter. */
#include "log.h"
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int enabled_channels = -1;

static int parse_channels(void)
{
    const char *spec = mpcrt_config_str(MPCRT_CFG_DEBUG);
    static const struct {
        const char *name;
        int bits;
    } names[] = {{"sched", MPCRT_LOG_SCHED}, {"stack", MPCRT_LOG_STACK}, {"mpi", MPCRT_LOG_MPI},
                 {"omp", MPCRT_LOG_OMP},     {"all", 0xffff}};
    int bits = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(spec, names[i].name))
            bits |= names[i].bits;
    return bits;
}

bool mpcrt_log_enabled(mpcrt_log_channel_t channel)
{
    /* Benign race: every thread computes the same value. */
    int bits = __atomic_load_n(&enabled_channels, __ATOMIC_RELAXED);
    if (bits == -1) {
        bits = parse_channels();
        __atomic_store_n(&enabled_channels, bits, __ATOMIC_RELAXED);
    }
    return (bits & (int)channel) != 0;
}

void mpcrt_log(mpcrt_log_channel_t channel, const char *fmt, ...)
{
    if (!mpcrt_log_enabled(channel))
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpcrt: %s\n", line);
}

void mpcrt_fatal(const char *file, int line, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "mpcrt: internal error at %s:%d: %s\n", file, line, text);
    abort();
}
