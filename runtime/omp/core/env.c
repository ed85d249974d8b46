/* The OpenMP environment variables (OpenMP 5.1 chapter 6): one table of every variable this layer reads,
 * with its parser and a line of documentation, read once at start-up. This is the only place in
 * runtime/omp that calls getenv. OMP_DISPLAY_ENV prints the resulting ICVs in the format of the spec. */
#include "../omp_internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUPPORTED_ACTIVE_LEVELS 255
#define DEFAULT_STACKSIZE (4UL << 20)
#define DEFAULT_SPIN_ROUNDS 20000UL
#define DEFAULT_FORK_WAYS 4

typedef bool (*parse_fn)(const char *text);

typedef struct {
    const char *name;
    parse_fn parse;
    const char *doc;
} env_entry_t;

static bool nested_set, nested_value, max_levels_set;

static void warn(const char *name, const char *text)
{
    fprintf(stderr, "mpcrt (OpenMP): ignoring %s=%s (invalid value)\n", name, text);
}

static const char *skip_space(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

static bool parse_ulong(const char **p, unsigned long *out)
{
    const char *s = skip_space(*p);
    if (!isdigit((unsigned char)*s))
        return false;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno)
        return false;
    *out = v;
    *p = skip_space(end);
    return true;
}

static bool parse_bool_text(const char *text, bool *out)
{
    const char *s = skip_space(text);
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 4 && !strncasecmp(s, "true", 4))
        *out = true;
    else if (n == 5 && !strncasecmp(s, "false", 5))
        *out = false;
    else
        return false;
    return true;
}

static bool parse_num_threads(const char *text)
{
    unsigned values[64];
    int n = 0;
    const char *p = text;
    for (;;) {
        unsigned long v;
        if (!parse_ulong(&p, &v) || v == 0 || v > INT_MAX || n == 64)
            return false;
        values[n++] = (unsigned)v;
        if (*p == '\0')
            break;
        if (*p != ',')
            return false;
        p++;
    }
    omp_global.nthreads_list = malloc(sizeof(unsigned) * (size_t)n);
    memcpy(omp_global.nthreads_list, values, sizeof(unsigned) * (size_t)n);
    omp_global.nthreads_list_len = n;
    omp_global.initial.nthreads = values[0];
    return true;
}

int omp_parse_schedule(const char *text, int *kind, long *chunk)
{
    const char *p = skip_space(text);
    int monotonic = -1;
    if (!strncasecmp(p, "monotonic", 9) && skip_space(p + 9)[0] == ':') {
        monotonic = 1;
        p = skip_space(skip_space(p + 9) + 1);
    } else if (!strncasecmp(p, "nonmonotonic", 12) && skip_space(p + 12)[0] == ':') {
        monotonic = 0;
        p = skip_space(skip_space(p + 12) + 1);
    }
    static const struct {
        const char *name;
        int kind;
    } kinds[] = {{"static", OMP_SCHED_STATIC}, {"dynamic", OMP_SCHED_DYNAMIC}, {"guided", OMP_SCHED_GUIDED},
                 {"auto", OMP_SCHED_AUTO}};
    int k = -1;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t len = strlen(kinds[i].name);
        if (!strncasecmp(p, kinds[i].name, len)) {
            k = kinds[i].kind;
            p = skip_space(p + len);
            break;
        }
    }
    if (k < 0)
        return -EINVAL;
    long c = 0;
    if (*p == ',') {
        p++;
        unsigned long v;
        if (!parse_ulong(&p, &v) || v > LONG_MAX)
            return -EINVAL;
        c = (long)v;
        if (c == 0)
            c = 1; /* a chunk of 0 means 1 */
    }
    if (*p != '\0')
        return -EINVAL;
    /* OpenMP 5.0: static defaults to monotonic; dynamic/guided without a modifier stay as given. */
    if (monotonic == 1 || (monotonic == -1 && k == OMP_SCHED_STATIC))
        k |= OMP_SCHED_MONOTONIC;
    *kind = k;
    *chunk = c;
    return 0;
}

static bool parse_schedule_env(const char *text)
{
    int kind;
    long chunk;
    if (omp_parse_schedule(text, &kind, &chunk) != 0)
        return false;
    omp_global.initial.run_sched = kind;
    omp_global.initial.run_chunk = chunk;
    return true;
}

static bool parse_dynamic(const char *text)
{
    bool v;
    if (!parse_bool_text(text, &v))
        return false;
    omp_global.initial.dyn = v;
    return true;
}

static bool parse_nested(const char *text)
{
    if (!parse_bool_text(text, &nested_value))
        return false;
    nested_set = true;
    return true;
}

static bool parse_max_active_levels(const char *text)
{
    unsigned long v;
    const char *p = text;
    if (!parse_ulong(&p, &v) || *p || v > INT_MAX)
        return false;
    omp_global.initial.max_active_levels = v > SUPPORTED_ACTIVE_LEVELS ? SUPPORTED_ACTIVE_LEVELS : (int)v;
    max_levels_set = true;
    return true;
}

static bool parse_thread_limit(const char *text)
{
    unsigned long v;
    const char *p = text;
    if (!parse_ulong(&p, &v) || *p || v == 0)
        return false;
    omp_global.initial.thread_limit = v > UINT_MAX ? UINT_MAX : (unsigned)v;
    return true;
}

static bool parse_size_text(const char *text, size_t *out)
{
    const char *p = text;
    unsigned long v;
    if (!parse_ulong(&p, &v))
        return false;
    unsigned long shift = 10; /* the default unit is KiB */
    switch (*p) {
    case 'b': case 'B': shift = 0; p++; break;
    case 'k': case 'K': shift = 10; p++; break;
    case 'm': case 'M': shift = 20; p++; break;
    case 'g': case 'G': shift = 30; p++; break;
    default: break;
    }
    p = skip_space(p);
    if (*p || (v << shift) >> shift != v)
        return false;
    *out = v << shift;
    return true;
}

static bool parse_stacksize(const char *text)
{
    size_t v;
    if (!parse_size_text(text, &v) || v == 0)
        return false;
    omp_global.stacksize = v < 65536 ? 65536 : v;
    return true;
}

static bool parse_gomp_stacksize(const char *text)
{
    if (getenv("OMP_STACKSIZE"))
        return true; /* OMP_STACKSIZE wins */
    return parse_stacksize(text);
}

static bool parse_wait_policy(const char *text)
{
    const char *s = skip_space(text);
    if (!strncasecmp(s, "active", 6) && !*skip_space(s + 6))
        omp_global.wait_policy = 1;
    else if (!strncasecmp(s, "passive", 7) && !*skip_space(s + 7))
        omp_global.wait_policy = 0;
    else
        return false;
    return true;
}

static bool spincount_set;

static bool parse_spincount(const char *text)
{
    const char *s = skip_space(text);
    if (!strncasecmp(s, "infinite", 8) || !strncasecmp(s, "infinity", 8)) {
        omp_global.spin_rounds = ULONG_MAX;
        spincount_set = true;
        return true;
    }
    unsigned long v;
    if (!parse_ulong(&s, &v))
        return false;
    switch (*s) {
    case 'k': case 'K': v *= 1000UL; s++; break;
    case 'M': v *= 1000000UL; s++; break;
    case 'G': v *= 1000000000UL; s++; break;
    case 'T': v *= 1000000000000UL; s++; break;
    default: break;
    }
    if (*skip_space(s))
        return false;
    omp_global.spin_rounds = v;
    spincount_set = true;
    return true;
}

static int bind_word(const char **p)
{
    static const struct {
        const char *name;
        int value;
    } words[] = {{"true", OMP_BIND_TRUE},       {"false", OMP_BIND_FALSE},  {"primary", OMP_BIND_PRIMARY},
                 {"master", OMP_BIND_PRIMARY}, {"close", OMP_BIND_CLOSE}, {"spread", OMP_BIND_SPREAD}};
    const char *s = skip_space(*p);
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t len = strlen(words[i].name);
        if (!strncasecmp(s, words[i].name, len) && !isalpha((unsigned char)s[len])) {
            *p = skip_space(s + len);
            return words[i].value;
        }
    }
    return -1;
}

static bool parse_proc_bind(const char *text)
{
    int values[64];
    int n = 0;
    const char *p = text;
    for (;;) {
        int v = bind_word(&p);
        if (v < 0 || n == 64)
            return false;
        if (n > 0 && (v == OMP_BIND_TRUE || v == OMP_BIND_FALSE || values[0] == OMP_BIND_FALSE ||
                      values[0] == OMP_BIND_TRUE))
            return false; /* true/false only alone */
        values[n++] = v;
        if (*p == '\0')
            break;
        if (*p != ',')
            return false;
        p++;
    }
    omp_global.bind_list = malloc(sizeof(int) * (size_t)n);
    memcpy(omp_global.bind_list, values, sizeof(int) * (size_t)n);
    omp_global.bind_list_len = n;
    omp_global.initial.bind = values[0];
    return true;
}

/* ---- OMP_PLACES. Places are sets of VPs (the cores given to the process, VP i on core i); explicit
 * numbers name processors, taken here as core indices of the process. */

typedef struct {
    int *vps;
    int nvps, cap;
    int *first;
    int nplaces, pcap;
} places_t;

static void places_add_vp(places_t *pl, int vp)
{
    if (pl->nvps == pl->cap) {
        pl->cap = pl->cap ? 2 * pl->cap : 16;
        pl->vps = realloc(pl->vps, sizeof(int) * (size_t)pl->cap);
    }
    pl->vps[pl->nvps++] = vp;
}

static void places_close(places_t *pl)
{
    if (pl->nplaces + 2 > pl->pcap) {
        pl->pcap = pl->pcap ? 2 * pl->pcap : 16;
        pl->first = realloc(pl->first, sizeof(int) * (size_t)pl->pcap);
    }
    if (pl->nplaces == 0)
        pl->first[0] = 0;
    pl->nplaces++;
    pl->first[pl->nplaces] = pl->nvps;
}

static bool parse_int(const char **p, long *out)
{
    const char *s = skip_space(*p);
    bool neg = false;
    if (*s == '-' || *s == '+') {
        neg = *s == '-';
        s++;
    }
    unsigned long v;
    if (!parse_ulong(&s, &v))
        return false;
    *out = neg ? -(long)v : (long)v;
    *p = s;
    return true;
}

/* "{res[:num[:stride]],...}" -> the VPs of one place, appended to pl (not closed). */
static bool parse_one_place(const char **p, places_t *pl, int nvps)
{
    const char *s = skip_space(*p);
    if (*s != '{')
        return false;
    s++;
    for (;;) {
        bool exclude = false;
        s = skip_space(s);
        if (*s == '!') {
            exclude = true;
            s++;
        }
        long first, count = 1, stride = 1;
        if (!parse_int(&s, &first) || first < 0)
            return false;
        if (*s == ':') {
            s++;
            if (!parse_int(&s, &count) || count <= 0)
                return false;
            if (*s == ':') {
                s++;
                if (!parse_int(&s, &stride))
                    return false;
            }
        }
        for (long i = 0; i < count; i++) {
            long proc = first + i * stride;
            if (proc < 0 || proc >= nvps)
                continue; /* not one of ours */
            if (exclude) {
                for (int k = pl->first ? pl->first[pl->nplaces] : 0; k < pl->nvps; k++)
                    if (pl->vps[k] == proc)
                        pl->vps[k] = -1;
            } else {
                places_add_vp(pl, (int)proc);
            }
        }
        s = skip_space(s);
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == '}') {
            s++;
            break;
        }
        return false;
    }
    *p = skip_space(s);
    return true;
}

static bool parse_places_list(const char *text, places_t *pl, int nvps)
{
    const char *p = skip_space(text);
    for (;;) {
        bool exclude = false;
        if (*p == '!') {
            exclude = true;
            p++;
        }
        int start_vps = pl->nvps;
        if (!pl->first) {
            pl->pcap = 16;
            pl->first = calloc((size_t)pl->pcap, sizeof(int));
        }
        if (!parse_one_place(&p, pl, nvps))
            return false;
        /* compact excluded entries */
        int w = start_vps;
        for (int k = start_vps; k < pl->nvps; k++)
            if (pl->vps[k] >= 0)
                pl->vps[w++] = pl->vps[k];
        pl->nvps = w;
        int len = pl->nvps - start_vps;
        if (exclude) {
            pl->nvps = start_vps; /* excluded place: drop */
        } else if (len > 0) {
            places_close(pl);
        }
        long count = 1, stride = 1;
        if (*p == ':') {
            p++;
            if (!parse_int(&p, &count) || count <= 0)
                return false;
            if (*p == ':') {
                p++;
                if (!parse_int(&p, &stride))
                    return false;
            }
            /* Replicate the place count-1 more times, shifted by stride. */
            int base_first = pl->nplaces ? pl->first[pl->nplaces - 1] : 0;
            int base_len = len;
            for (long c = 1; c < count && base_len > 0; c++) {
                bool any = false;
                for (int k = 0; k < base_len; k++) {
                    long vp = pl->vps[base_first + k] + c * stride;
                    if (vp >= 0 && vp < nvps) {
                        places_add_vp(pl, (int)vp);
                        any = true;
                    }
                }
                if (any)
                    places_close(pl);
            }
        }
        p = skip_space(p);
        if (*p == '\0')
            break;
        if (*p != ',')
            return false;
        p++;
        p = skip_space(p);
    }
    return pl->nplaces > 0;
}

static const char *places_env;

static bool parse_places(const char *text)
{
    places_env = text;
    return true; /* parsed once the number of VPs is known (omp_places_init) */
}

static void places_init(int nvps)
{
    places_t pl = {0};
    const char *text = places_env;
    bool ok = false;
    if (text) {
        const char *s = skip_space(text);
        static const char *abstract[] = {"threads", "cores", "ll_caches", "numa_domains", "sockets"};
        int which = -1;
        size_t len = 0;
        for (int i = 0; i < 5; i++) {
            len = strlen(abstract[i]);
            if (!strncasecmp(s, abstract[i], len)) {
                which = i;
                break;
            }
        }
        if (which >= 0) {
            const char *p = skip_space(s + len);
            long limit = -1;
            if (*p == '(') {
                p++;
                if (!parse_int(&p, &limit) || limit <= 0 || *p != ')')
                    which = -2;
                else
                    p = skip_space(p + 1);
            }
            if (which >= 0 && *p == '\0') {
                pl.pcap = 16;
                pl.first = calloc((size_t)pl.pcap, sizeof(int));
                if (which <= 1) { /* one place per core (a VP runs one core) */
                    for (int v = 0; v < nvps && (limit < 0 || v < limit); v++) {
                        places_add_vp(&pl, v);
                        places_close(&pl);
                    }
                } else { /* one cache/domain/socket on these machines: all cores */
                    for (int v = 0; v < nvps; v++)
                        places_add_vp(&pl, v);
                    places_close(&pl);
                }
                ok = true;
            }
        } else {
            ok = parse_places_list(s, &pl, nvps);
        }
        if (!ok)
            warn("OMP_PLACES", text);
    }
    if (!ok) {
        free(pl.vps);
        free(pl.first);
        memset(&pl, 0, sizeof pl);
        pl.pcap = 16;
        pl.first = calloc((size_t)pl.pcap, sizeof(int));
        for (int v = 0; v < nvps; v++) {
            places_add_vp(&pl, v);
            places_close(&pl);
        }
        if (text)
            places_env = NULL;
    }
    omp_global.nplaces = pl.nplaces;
    omp_global.place_first = pl.first;
    omp_global.place_vps = pl.vps;
    omp_global.places_text = places_env;
}

static bool parse_cancellation(const char *text)
{
    bool v;
    if (!parse_bool_text(text, &v))
        return false;
    omp_global.cancellation = v;
    return true;
}

static bool parse_display_env(const char *text)
{
    bool v;
    const char *s = skip_space(text);
    if (!strncasecmp(s, "verbose", 7) && !*skip_space(s + 7)) {
        omp_global.display_env = 2;
        return true;
    }
    if (!parse_bool_text(text, &v))
        return false;
    omp_global.display_env = v ? 1 : 0;
    return true;
}

static bool parse_default_device(const char *text)
{
    unsigned long v;
    const char *p = text;
    if (!parse_ulong(&p, &v) || *p || v > INT_MAX)
        return false;
    omp_global.initial.default_device = (int)v;
    return true;
}

static bool parse_max_task_priority(const char *text)
{
    unsigned long v;
    const char *p = text;
    if (!parse_ulong(&p, &v) || *p || v > INT_MAX)
        return false;
    omp_global.max_task_priority = (int)v;
    return true;
}

static bool parse_display_affinity(const char *text)
{
    bool v;
    if (!parse_bool_text(text, &v))
        return false;
    omp_global.display_affinity = v;
    return true;
}

static bool parse_affinity_format(const char *text)
{
    snprintf(omp_global.affinity_format, sizeof omp_global.affinity_format, "%s", text);
    return true;
}

static bool parse_num_teams(const char *text)
{
    unsigned long v;
    const char *p = text;
    if (!parse_ulong(&p, &v) || *p || v == 0 || v > INT_MAX)
        return false;
    omp_global.num_teams = (int)v;
    return true;
}

static bool parse_teams_thread_limit(const char *text)
{
    unsigned long v;
    const char *p = text;
    if (!parse_ulong(&p, &v) || *p || v == 0 || v > INT_MAX)
        return false;
    omp_global.teams_thread_limit = (int)v;
    return true;
}

static bool parse_allocator(const char *text)
{
    static const char *names[] = {"omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc",
                                  "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",   "omp_cgroup_mem_alloc",
                                  "omp_pteam_mem_alloc",   "omp_thread_mem_alloc"};
    const char *s = skip_space(text);
    for (int i = 0; i < 8; i++) {
        size_t len = strlen(names[i]);
        if (!strncmp(s, names[i], len) && !*skip_space(s + len)) {
            omp_global.initial.def_allocator = (uintptr_t)(i + 1);
            return true;
        }
    }
    unsigned long v;
    if (parse_ulong(&s, &v) && !*s && v >= 1 && v <= 8) {
        omp_global.initial.def_allocator = v;
        return true;
    }
    return false;
}

static bool parse_accept(const char *text)
{
    (void)text;
    return true;
}

static bool parse_fork_ways(const char *text)
{
    unsigned long v;
    const char *p = text;
    if (!parse_ulong(&p, &v) || *p || v < 1 || v > 64)
        return false;
    omp_global.fork_ways = (unsigned)v;
    return true;
}

static const env_entry_t table[] = {
    {"OMP_NUM_THREADS", parse_num_threads, "team sizes per nesting level (list); default: the VPs of the process"},
    {"OMP_SCHEDULE", parse_schedule_env, "run-sched-var: [modifier:]kind[,chunk]"},
    {"OMP_DYNAMIC", parse_dynamic, "dyn-var (true/false)"},
    {"OMP_NESTED", parse_nested, "deprecated: true allows nested active regions"},
    {"OMP_MAX_ACTIVE_LEVELS", parse_max_active_levels, "max-active-levels-var"},
    {"OMP_THREAD_LIMIT", parse_thread_limit, "thread-limit-var"},
    {"OMP_STACKSIZE", parse_stacksize, "stack of worker ULTs (default unit K; default 4M, untouched pages are free)"},
    {"GOMP_STACKSIZE", parse_gomp_stacksize, "libgomp's name for OMP_STACKSIZE"},
    {"OMP_WAIT_POLICY", parse_wait_policy, "active: waiting threads spin; passive: they block at once"},
    {"GOMP_SPINCOUNT", parse_spincount, "spin rounds before a waiting thread blocks (or 'infinite')"},
    {"OMP_PROC_BIND", parse_proc_bind, "bind-var per nesting level: true, false, primary, close, spread"},
    {"OMP_PLACES", parse_places, "place list: threads, cores, sockets, ... or {a,b},{c:n:s}"},
    {"OMP_CANCELLATION", parse_cancellation, "cancel-var (true/false)"},
    {"OMP_DISPLAY_ENV", parse_display_env, "print the ICVs at start-up (true, false, verbose)"},
    {"OMP_DEFAULT_DEVICE", parse_default_device, "default-device-var"},
    {"OMP_MAX_TASK_PRIORITY", parse_max_task_priority, "max-task-priority-var"},
    {"OMP_DISPLAY_AFFINITY", parse_display_affinity, "print each thread's affinity when a team forms"},
    {"OMP_AFFINITY_FORMAT", parse_affinity_format, "format of OMP_DISPLAY_AFFINITY lines"},
    {"OMP_NUM_TEAMS", parse_num_teams, "nteams-var"},
    {"OMP_TEAMS_THREAD_LIMIT", parse_teams_thread_limit, "teams-thread-limit-var"},
    {"OMP_ALLOCATOR", parse_allocator, "def-allocator-var (a predefined allocator name)"},
    {"OMP_TARGET_OFFLOAD", parse_accept, "accepted; there are no offload devices (host fallback)"},
    {"MPCRT_OMP_FORK_WAYS", parse_fork_ways, "fan-out of the tree that starts and wakes team members"},
};

void omp_env_init(void)
{
    int nvps = mpcrt_sched_num_vps();
    omp_icv_t *icv = &omp_global.initial;
    icv->nthreads = (unsigned)(nvps > 0 ? nvps : 1);
    icv->thread_limit = UINT_MAX;
    icv->run_sched = OMP_SCHED_DYNAMIC;
    icv->run_chunk = 1;
    icv->bind = OMP_BIND_FALSE;
    icv->max_active_levels = 1;
    icv->default_device = 0;
    icv->def_allocator = 1; /* omp_default_mem_alloc */
    icv->dyn = false;
    omp_global.stacksize = DEFAULT_STACKSIZE;
    omp_global.wait_policy = -1;
    omp_global.spin_rounds = DEFAULT_SPIN_ROUNDS;
    omp_global.fork_ways = DEFAULT_FORK_WAYS;
    omp_global.supported_active_levels = SUPPORTED_ACTIVE_LEVELS;
    snprintf(omp_global.affinity_format, sizeof omp_global.affinity_format, "level %%L thread %%i affinity %%A");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const char *text = getenv(table[i].name);
        if (text && !table[i].parse(text))
            warn(table[i].name, text);
    }
    if (!spincount_set && omp_global.wait_policy == 1)
        omp_global.spin_rounds = ULONG_MAX;
    else if (!spincount_set && omp_global.wait_policy == 0)
        omp_global.spin_rounds = 0;
    if (!max_levels_set) {
        if (nested_set)
            icv->max_active_levels = nested_value ? SUPPORTED_ACTIVE_LEVELS : 1;
        else if (omp_global.nthreads_list_len > 1 || omp_global.bind_list_len > 1)
            icv->max_active_levels = SUPPORTED_ACTIVE_LEVELS;
    }
    places_init(nvps);
}

static const char *sched_name(int kind)
{
    switch (kind & OMP_SCHED_KIND_MASK) {
    case OMP_SCHED_STATIC: return "STATIC";
    case OMP_SCHED_DYNAMIC: return "DYNAMIC";
    case OMP_SCHED_GUIDED: return "GUIDED";
    case OMP_SCHED_AUTO: return "AUTO";
    default: return "RUNTIME";
    }
}

static const char *bind_name(int bind)
{
    switch (bind) {
    case OMP_BIND_TRUE: return "TRUE";
    case OMP_BIND_PRIMARY: return "PRIMARY";
    case OMP_BIND_CLOSE: return "CLOSE";
    case OMP_BIND_SPREAD: return "SPREAD";
    default: return "FALSE";
    }
}

void omp_display_env_print(bool verbose)
{
    const omp_icv_t *icv = &omp_global.initial;
    FILE *out = stderr;
    fprintf(out, "\nOPENMP DISPLAY ENVIRONMENT BEGIN\n");
    fprintf(out, "  _OPENMP = '201511'\n");
    fprintf(out, "  OMP_DYNAMIC = '%s'\n", icv->dyn ? "TRUE" : "FALSE");
    fprintf(out, "  OMP_NESTED = '%s'\n", icv->max_active_levels > 1 ? "TRUE" : "FALSE");
    fprintf(out, "  OMP_NUM_THREADS = '");
    if (omp_global.nthreads_list_len > 0)
        for (int i = 0; i < omp_global.nthreads_list_len; i++)
            fprintf(out, "%s%u", i ? "," : "", omp_global.nthreads_list[i]);
    else
        fprintf(out, "%u", icv->nthreads);
    fprintf(out, "'\n");
    fprintf(out, "  OMP_SCHEDULE = '%s%s", (icv->run_sched & OMP_SCHED_MONOTONIC) &&
                                                  (icv->run_sched & OMP_SCHED_KIND_MASK) != OMP_SCHED_STATIC
                                              ? "MONOTONIC:"
                                              : "",
            sched_name(icv->run_sched));
    if (icv->run_chunk > 1 || (icv->run_chunk == 1 && (icv->run_sched & OMP_SCHED_KIND_MASK) != OMP_SCHED_DYNAMIC))
        fprintf(out, ",%ld", icv->run_chunk);
    fprintf(out, "'\n");
    fprintf(out, "  OMP_PROC_BIND = '");
    if (omp_global.bind_list_len > 0)
        for (int i = 0; i < omp_global.bind_list_len; i++)
            fprintf(out, "%s%s", i ? "," : "", bind_name(omp_global.bind_list[i]));
    else
        fprintf(out, "%s", bind_name(icv->bind));
    fprintf(out, "'\n");
    fprintf(out, "  OMP_PLACES = '");
    for (int p = 0; p < omp_global.nplaces && omp_global.places_text; p++) {
        fprintf(out, "%s{", p ? "," : "");
        for (int k = omp_global.place_first[p]; k < omp_global.place_first[p + 1]; k++)
            fprintf(out, "%s%d", k > omp_global.place_first[p] ? "," : "", omp_global.place_vps[k]);
        fprintf(out, "}");
    }
    fprintf(out, "'\n");
    fprintf(out, "  OMP_STACKSIZE = '%zu'\n", omp_global.stacksize);
    fprintf(out, "  OMP_WAIT_POLICY = '%s'\n", omp_global.wait_policy == 1 ? "ACTIVE" : "PASSIVE");
    fprintf(out, "  OMP_THREAD_LIMIT = '%u'\n", icv->thread_limit);
    fprintf(out, "  OMP_MAX_ACTIVE_LEVELS = '%d'\n", icv->max_active_levels);
    fprintf(out, "  OMP_NUM_TEAMS = '%d'\n", omp_global.num_teams);
    fprintf(out, "  OMP_TEAMS_THREAD_LIMIT = '%d'\n", omp_global.teams_thread_limit);
    fprintf(out, "  OMP_CANCELLATION = '%s'\n", omp_global.cancellation ? "TRUE" : "FALSE");
    fprintf(out, "  OMP_DEFAULT_DEVICE = '%d'\n", icv->default_device);
    fprintf(out, "  OMP_MAX_TASK_PRIORITY = '%d'\n", omp_global.max_task_priority);
    fprintf(out, "  OMP_DISPLAY_AFFINITY = '%s'\n", omp_global.display_affinity ? "TRUE" : "FALSE");
    fprintf(out, "  OMP_AFFINITY_FORMAT = '%s'\n", omp_global.affinity_format);
    static const char *alloc_names[] = {"", "omp_default_mem_alloc", "omp_large_cap_mem_alloc",
                                        "omp_const_mem_alloc", "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc",
                                        "omp_cgroup_mem_alloc", "omp_pteam_mem_alloc", "omp_thread_mem_alloc"};
    fprintf(out, "  OMP_ALLOCATOR = '%s'\n", icv->def_allocator <= 8 ? alloc_names[icv->def_allocator] : "");
    fprintf(out, "  OMP_TARGET_OFFLOAD = 'DEFAULT'\n");
    if (verbose) {
        fprintf(out, "  GOMP_CPU_AFFINITY = ''\n");
        fprintf(out, "  GOMP_STACKSIZE = '%zu'\n", omp_global.stacksize);
        fprintf(out, "  GOMP_SPINCOUNT = '%lu'\n", omp_global.spin_rounds);
        fprintf(out, "  MPCRT_OMP_FORK_WAYS = '%u'\n", omp_global.fork_ways);
    }
    fprintf(out, "OPENMP DISPLAY ENVIRONMENT END\n");
}
