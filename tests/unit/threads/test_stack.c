/* Stack slabs: distinct usable stacks, guard pages that fault, canaries, reuse, and the VMA budget. */
#include "test_util.h"
#include "../../../runtime/threads/stack.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long lines = 0;
    int c;
    while ((c = fgetc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    return lines;
}

static void test_stacks_are_distinct_and_writable(void **state)
{
    (void)state;
    enum { N = 300 };
    static mpcrt_stack_t s[N];
    for (int i = 0; i < N; i++) {
        assert_int_equal(mpcrt_stack_alloc(&s[i], 64 * 1024), 0);
        assert_int_equal(s[i].size, 64 * 1024);
        memset((char *)s[i].base + 8, i & 0xff, s[i].size - 8);
    }
    for (int i = 0; i < N; i++) {
        assert_true(mpcrt_stack_intact(&s[i]));
        assert_int_equal(((unsigned char *)s[i].base)[s[i].size - 1], i & 0xff); /* no overlap */
    }
    for (int i = 0; i < N; i++)
        mpcrt_stack_free(&s[i]);
}

static void test_freed_stacks_are_reused(void **state)
{
    (void)state;
    mpcrt_stack_t a, b;
    assert_int_equal(mpcrt_stack_alloc(&a, 128 * 1024), 0);
    void *first = a.base;
    mpcrt_stack_free(&a);
    assert_int_equal(mpcrt_stack_alloc(&b, 128 * 1024), 0);
    assert_ptr_equal(b.base, first);
    mpcrt_stack_free(&b);
}

static void test_overflow_hits_guard_page(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    skip(); /* the sanitizers intercept SIGSEGV in the child */
#endif
    mpcrt_stack_t s;
    assert_int_equal(mpcrt_stack_alloc(&s, 64 * 1024), 0);
    if (!s.guarded) {
        mpcrt_stack_free(&s);
        skip(); /* MPCRT_STACK_GUARD=0: the canary test covers this configuration */
    }
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL); /* cmocka catches SIGSEGV; here the kernel must kill us */
        volatile char *below = (char *)s.base - 1; /* the guard page */
        *below = 1;
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
    mpcrt_stack_free(&s);
}

static void test_canary_detects_overwrite(void **state)
{
    (void)state;
    mpcrt_stack_t s;
    assert_int_equal(mpcrt_stack_alloc(&s, 64 * 1024), 0);
    bool guarded = s.guarded;
    if (!guarded) {
        assert_true(mpcrt_stack_intact(&s));
        memset(s.base, 0, 8); /* what an overflow of an unguarded stack does */
        assert_false(mpcrt_stack_intact(&s));
    }
    mpcrt_stack_free(&s);
    if (guarded)
        skip(); /* guarded stacks have no canary: run with MPCRT_STACK_GUARD=0 */
}

static void test_many_stacks_stay_within_map_count(void **state)
{
    (void)state;
    enum { N = 100000 };
    mpcrt_stack_t *s = calloc(N, sizeof *s);
    long before = count_mappings();
    for (int i = 0; i < N; i++)
        assert_int_equal(mpcrt_stack_alloc(&s[i], 16 * 1024), 0);
    long after = count_mappings();
    mpcrt_stack_stats_t stats;
    mpcrt_stack_stats(&stats);
    print_message("100000 stacks: %ld new mappings; guards: %zu madvise, %zu mprotect, %zu none\n",
                  after - before, stats.guard_madvise, stats.guard_mprotect, stats.guard_none);
    assert_true(after - before < 65530 / 2);
    if (getenv("MPCRT_STACK_GUARD") && !strcmp(getenv("MPCRT_STACK_GUARD"), "0"))
        assert_int_equal(stats.guard_madvise + stats.guard_mprotect, 0);
    else
        assert_int_equal(stats.guard_none, 0); /* within budget every stack gets a guard */
    for (int i = 0; i < N; i++)
        mpcrt_stack_free(&s[i]);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stacks_are_distinct_and_writable),
        cmocka_unit_test(test_freed_stacks_are_reused),
        cmocka_unit_test(test_overflow_hits_guard_page),
        cmocka_unit_test(test_canary_detects_overwrite),
        cmocka_unit_test(test_many_stacks_stay_within_map_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
