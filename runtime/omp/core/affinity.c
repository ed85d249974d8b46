/* Thread affinity (OpenMP 5.1 section 2.6.2): places are sets of VPs; proc_bind primary/close/spread
 * assign each team member a place inside the encountering thread's partition, and a member lives on a
 * VP of its place. Without binding, member i lives on VP (master's VP + i) mod VPs. Also the
 * OMP_AFFINITY_FORMAT formatter. */
#include "../omp_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int omp_place_of_vp(int vp)
{
    for (int p = 0; p < omp_global.nplaces; p++)
        for (int k = omp_global.place_first[p]; k < omp_global.place_first[p + 1]; k++)
            if (omp_global.place_vps[k] == vp)
                return p;
    return -1;
}

void omp_places_of_cores(int first_vp, int count, int *part_first, int *part_len)
{
    /* The run of consecutive places (wrapping around the list) whose VPs all lie in the cores. */
    int nvps = mpcrt_sched_num_vps(), P = omp_global.nplaces;
    *part_first = 0;
    *part_len = P;
    bool inside[P > 0 ? P : 1];
    int n_inside = 0;
    for (int p = 0; p < P; p++) {
        inside[p] = omp_global.place_first[p + 1] > omp_global.place_first[p];
        for (int k = omp_global.place_first[p]; k < omp_global.place_first[p + 1]; k++)
            if (((omp_global.place_vps[k] - first_vp) % nvps + nvps) % nvps >= count)
                inside[p] = false;
        n_inside += inside[p];
    }
    if (n_inside == 0 || n_inside == P)
        return; /* no place fits the cores (or all do): the whole list */
    for (int p = 0; p < P; p++) {
        if (!inside[p] || inside[(p + P - 1) % P])
            continue; /* not the start of a run */
        int len = 0;
        while (len < P && inside[(p + len) % P])
            len++;
        *part_first = p;
        *part_len = len;
        return; /* the first run: places of a rank's cores are normally one run */
    }
}

static int *part_first_of(omp_team_t *team) { return team->thread_place + team->capacity; }
static int *part_len_of(omp_team_t *team) { return team->thread_place + 2 * team->capacity; }

/* Stores only a change: workers read these at each region start (team.c, SET_IF_CHANGED). */
static void put(int *slot, int value)
{
    if (*slot != value)
        *slot = value;
}

void omp_assign_places(omp_thread_t *master, omp_team_t *team, int bind)
{
    unsigned n = team->nthreads;
    int *place = team->thread_place, *pfirst = part_first_of(team), *plen = part_len_of(team);
    int first = master->ts.part_first, len = master->ts.part_len;
    int P = omp_global.nplaces;
    if (len <= 0 || len > P) {
        first = 0;
        len = P;
    }
    if (bind == OMP_BIND_FALSE || P == 0) {
        for (unsigned i = 0; i < n; i++) {
            put(&place[i], -1);
            put(&pfirst[i], first);
            put(&plen[i], len);
        }
        return;
    }
    int master_vp = master->vp >= 0 ? master->vp : 0;
    int mp = master->ts.place >= 0 ? master->ts.place : omp_place_of_vp(master_vp);
    /* Index of the master's place inside its partition (places wrap around the list). */
    int mi = 0;
    for (int k = 0; k < len; k++)
        if ((first + k) % P == mp)
            mi = k;
    if (bind == OMP_BIND_PRIMARY) {
        for (unsigned i = 0; i < n; i++) {
            put(&place[i], (first + mi) % P);
            put(&pfirst[i], first);
            put(&plen[i], len);
        }
        return;
    }
    if (bind == OMP_BIND_SPREAD && (int)n <= len) {
        /* n subpartitions of consecutive places, the first starting at the master's place. */
        int base = len / (int)n, extra = len % (int)n, start = mi;
        for (unsigned i = 0; i < n; i++) {
            int size = base + ((int)i < extra ? 1 : 0);
            put(&place[i], (first + start) % P);
            put(&pfirst[i], (first + start) % P);
            put(&plen[i], size);
            start += size;
        }
        return;
    }
    /* close (and true, and spread with more threads than places): consecutive places from the
     * master's, ceil(n/len) threads on the first n mod len places. */
    int per = (int)n / len, extra = (int)n % len;
    unsigned i = 0;
    for (int k = 0; k < len && i < n; k++) {
        int count = per + (k < extra ? 1 : 0);
        if ((int)n <= len)
            count = 1;
        for (int c = 0; c < count && i < n; c++, i++) {
            put(&place[i], (first + (mi + k) % len) % P);
            bool own_partition = bind == OMP_BIND_SPREAD;
            put(&pfirst[i], own_partition ? place[i] : first);
            put(&plen[i], own_partition ? 1 : len);
        }
    }
    for (; i < n; i++) {
        put(&place[i], place[i % (unsigned)len]);
        put(&pfirst[i], first);
        put(&plen[i], len);
    }
}

/* Unbound member i: round robin over the contention group's cores, starting at the master's. */
static int unbound_vp(const omp_thread_t *master, unsigned i, int master_vp)
{
    int nvps = mpcrt_sched_num_vps(), count = master->cores_count, first = master->cores_first;
    if (count <= 0 || count > nvps)
        count = nvps;
    int off = ((master_vp - first) % nvps + nvps) % nvps;
    if (off >= count)
        off = 0;
    return (first + (off + (int)(i % (unsigned)count)) % count) % nvps;
}

static int placed_vp(omp_team_t *team, unsigned i, int master_vp)
{
    int p = team->thread_place[i];
    if (p < 0 || p >= omp_global.nplaces)
        return unbound_vp(team->master, i, master_vp);
    int first = omp_global.place_first[p], len = omp_global.place_first[p + 1] - first;
    if (len <= 0)
        return unbound_vp(team->master, i, master_vp);
    /* Members sharing a place spread over its VPs. */
    unsigned before = 0;
    for (unsigned k = 0; k < i; k++)
        if (team->thread_place[k] == p)
            before++;
    return omp_global.place_vps[first + (int)(before % (unsigned)len)];
}

int omp_thread_vp_for(omp_team_t *team, unsigned i, int master_vp)
{
    int vp = placed_vp(team, i, master_vp), nvps = mpcrt_sched_num_vps();
    /* The VP hosted by a plain program's main thread runs only while that thread waits in the runtime,
     * as it does in the barriers and joins of teams whose master lives there (itself, or a ULT of that
     * VP), not for other teams (of user pthreads, nested teams of workers elsewhere): their members go
     * to the next VP. */
    if (vp == omp_global.hosted_vp && team->master->vp != omp_global.hosted_vp && nvps > 1)
        vp = (vp + 1) % nvps;
    return vp;
}

int omp_thread_part_first(omp_team_t *team, unsigned i) { return part_first_of(team)[i]; }
int omp_thread_part_len(omp_team_t *team, unsigned i) { return part_len_of(team)[i]; }

/* Appends text padded to width: right-justified with '.', zero-padded (after a sign) with '0', else
 * left-justified; counts what would be written even past size, as snprintf does. */
static void append(char *buf, size_t size, size_t *pos, const char *text, int width, bool zero, bool right)
{
    char field[512];
    int len = (int)strlen(text);
    if (width > len && width < (int)sizeof field) {
        int pad = width - len;
        if (zero) {
            int sign = text[0] == '-' ? 1 : 0;
            memcpy(field, text, (size_t)sign);
            memset(field + sign, '0', (size_t)pad);
            strcpy(field + sign + pad, text + sign);
        } else if (right) {
            memset(field, ' ', (size_t)pad);
            strcpy(field + pad, text);
        } else {
            strcpy(field, text);
            memset(field + len, ' ', (size_t)pad);
            field[width] = '\0';
        }
        text = field;
    }
    size_t n = strlen(text);
    if (*pos < size) {
        size_t room = size - *pos - 1;
        memcpy(buf + *pos, text, n < room ? n : room);
        buf[*pos + (n < room ? n : room)] = '\0';
    }
    *pos += n;
}

size_t omp_format_affinity(char *buf, size_t size, const char *format, omp_thread_t *thr)
{
    size_t pos = 0;
    if (size)
        buf[0] = '\0';
    omp_team_t *team = thr->ts.team;
    for (const char *f = format; *f; f++) {
        if (*f != '%') {
            char c[2] = {*f, 0};
            append(buf, size, &pos, c, 0, false, false);
            continue;
        }
        f++;
        if (*f == '%') {
            append(buf, size, &pos, "%", 0, false, false);
            continue;
        }
        bool zero = false, right = false;
        if (*f == '0') {
            zero = true;
            f++;
        }
        if (*f == '.') {
            right = true;
            f++;
        }
        int width = 0;
        while (*f >= '0' && *f <= '9')
            width = width * 10 + (*f++ - '0');
        char name = *f;
        if (*f == '{') {
            const char *end = strchr(f, '}');
            if (!end)
                break;
            static const struct {
                const char *name;
                char letter;
            } longnames[] = {{"team_num", 't'},    {"num_teams", 'T'},          {"nesting_level", 'L'},
                             {"thread_num", 'n'},  {"num_threads", 'N'},        {"ancestor_tnum", 'a'},
                             {"host", 'H'},        {"process_id", 'P'},         {"native_thread_id", 'i'},
                             {"thread_affinity", 'A'}};
            name = '?';
            for (size_t k = 0; k < sizeof longnames / sizeof longnames[0]; k++)
                if ((size_t)(end - f - 1) == strlen(longnames[k].name) &&
                    !strncmp(f + 1, longnames[k].name, (size_t)(end - f - 1)))
                    name = longnames[k].letter;
            f = end;
        }
        char text[256];
        switch (name) {
        case 't': snprintf(text, sizeof text, "%d", thr->team_num); break;
        case 'T': snprintf(text, sizeof text, "%d", thr->num_teams > 0 ? thr->num_teams : 1); break;
        case 'L': snprintf(text, sizeof text, "%u", team->level); break;
        case 'n': snprintf(text, sizeof text, "%u", thr->ts.num); break;
        case 'N': snprintf(text, sizeof text, "%u", team->nthreads); break;
        case 'a': snprintf(text, sizeof text, "%d", team->parent_team ? (int)team->parent_num : -1); break;
        case 'H': gethostname(text, sizeof text); text[sizeof text - 1] = '\0'; break;
        case 'P': snprintf(text, sizeof text, "%d", (int)getpid()); break;
        case 'i': snprintf(text, sizeof text, "%d", (int)syscall(SYS_gettid)); break;
        case 'A': {
            int p = thr->ts.place;
            if (p < 0) {
                int vp = thr->vp >= 0 ? thr->vp : 0;
                snprintf(text, sizeof text, "%d", vp);
            } else {
                size_t tp = 0;
                text[0] = '\0';
                for (int k = omp_global.place_first[p]; k < omp_global.place_first[p + 1]; k++)
                    tp += (size_t)snprintf(text + tp, sizeof text - tp, "%s%d", tp ? "," : "",
                                           omp_global.place_vps[k]);
            }
            break;
        }
        default: snprintf(text, sizeof text, "%%%c", name); break;
        }
        append(buf, size, &pos, text, width, zero, right);
    }
    return pos;
}
