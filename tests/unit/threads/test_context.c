/* The assembly context switch: control flow, preserved registers and the per-context FP environment. */
#include "test_util.h"
#include "../../../runtime/threads/context.h"
#include "../../../runtime/threads/sched.h"

#include <fenv.h>
#include <stdlib.h>

static void *main_sp, *ctx_sp;
static int trace[8], ntrace;

static void ping(void *arg)
{
    trace[ntrace++] = *(int *)arg;
    mpcrt_ctx_switch(&ctx_sp, main_sp);
    trace[ntrace++] = *(int *)arg + 1;
    mpcrt_ctx_switch(&ctx_sp, main_sp);
    abort(); /* never resumed a third time */
}

static void test_switch_runs_entry_and_returns(void **state)
{
    (void)state;
    size_t size = 64 * 1024;
    char *stack = malloc(size);
    int arg = 40;
    ntrace = 0;
    ctx_sp = mpcrt_ctx_make(stack + size, ping, &arg);
    /* Values in callee-saved registers across the switch must survive. */
    volatile long keep = 0x1234567890abcdefL;
    mpcrt_ctx_switch(&main_sp, ctx_sp);
    trace[ntrace++] = 1;
    mpcrt_ctx_switch(&main_sp, ctx_sp);
    trace[ntrace++] = 2;
    assert_int_equal(ntrace, 4);
    assert_int_equal(trace[0], 40);
    assert_int_equal(trace[1], 1);
    assert_int_equal(trace[2], 41);
    assert_int_equal(trace[3], 2);
    assert_true(keep == 0x1234567890abcdefL);
    free(stack);
}

static int seen_round[2];

static void rounding_context(void *arg)
{
    (void)arg;
    seen_round[0] = fegetround(); /* inherited from the creator at creation time */
    fesetround(FE_UPWARD);        /* changes MXCSR and the x87 control word of this context only */
    mpcrt_ctx_switch(&ctx_sp, main_sp);
    seen_round[1] = fegetround();
    mpcrt_ctx_switch(&ctx_sp, main_sp);
    abort();
}

static void test_fp_environment_is_per_context(void **state)
{
    (void)state;
    size_t size = 64 * 1024;
    char *stack = malloc(size);
    fesetround(FE_TONEAREST);
    ctx_sp = mpcrt_ctx_make(stack + size, rounding_context, NULL);
    fesetround(FE_DOWNWARD);
    mpcrt_ctx_switch(&main_sp, ctx_sp);
    assert_int_equal(fegetround(), FE_DOWNWARD); /* ours was restored */
    assert_int_equal(seen_round[0], FE_TONEAREST);
    fesetround(FE_TOWARDZERO);
    mpcrt_ctx_switch(&main_sp, ctx_sp);
    assert_int_equal(seen_round[1], FE_UPWARD);
    assert_int_equal(fegetround(), FE_TOWARDZERO);
    fesetround(FE_TONEAREST);
    free(stack);
}

static double x87_precision_result(void)
{
    volatile long double a = 1.0L, b = 3.0L;
    return (double)(a / b);
}

static void *x87_ult(void *arg)
{
    unsigned short cw;
    __asm__ volatile("fnstcw %0" : "=m"(cw));
    *(unsigned short *)arg = cw;
    unsigned short single = (unsigned short)(cw & ~0x300); /* precision control: 24-bit */
    __asm__ volatile("fldcw %0" ::"m"(single));
    mpcrt_yield();
    return NULL;
}

static void test_x87_control_word_survives_ult_switches(void **state)
{
    (void)state;
    unsigned short seen = 0;
    mpcrt_ult_t *a = spawn(x87_ult, &seen, 0, 0);
    join(a);
    unsigned short now;
    __asm__ volatile("fnstcw %0" : "=m"(now));
    assert_int_equal(now & 0x300, 0x300); /* the test thread still computes in extended precision */
    assert_int_equal(seen & 0x300, 0x300);
    assert_true(x87_precision_result() > 0.3333333);
}

/* The return thunk of MPCRT_RETURNS_AFTER_SWITCH functions: both of its paths return the result (rax and
 * rdx) to the right place, and it takes the indirect one exactly once after a switch. */
extern __thread unsigned char mpcrt_ctx_switched;

/* x in rdx, 3x in rax */
static unsigned __int128 expected_pair(long x)
{
    return ((unsigned __int128)(unsigned long)x << 64) | (unsigned long)(x * 3);
}

static __attribute__((noinline)) MPCRT_RETURNS_AFTER_SWITCH unsigned __int128
switch_and_return(void **save, void **load, long x)
{
    if (save)
        mpcrt_ctx_switch(save, *load);
    __asm__ volatile("" ::: "memory");
    return expected_pair(x);
}

static unsigned __int128 thunk_results[2];

static void thunk_peer(void *arg)
{
    (void)arg;
    /* Another call site than main's: the predictor's entry for main's call is wrong here. */
    thunk_results[1] = switch_and_return(&ctx_sp, &main_sp, 7);
    trace[ntrace++] = mpcrt_ctx_switched;
    mpcrt_ctx_switch(&ctx_sp, main_sp);
    abort();
}

static void test_return_thunk_after_switch(void **state)
{
    (void)state;
    size_t size = 64 * 1024;
    char *stack = malloc(size);
    ntrace = 0;
    ctx_sp = mpcrt_ctx_make(stack + size, thunk_peer, NULL);
    mpcrt_ctx_switched = 0;
    thunk_results[0] = switch_and_return(&main_sp, &ctx_sp, 5); /* the peer runs, switches back */
    trace[ntrace++] = mpcrt_ctx_switched;                       /* cleared by the indirect path */
    mpcrt_ctx_switch(&main_sp, ctx_sp);                         /* the peer's call returns */
    assert_true(thunk_results[0] == expected_pair(5));
    assert_true(thunk_results[1] == expected_pair(7));
    assert_int_equal(ntrace, 2);
    assert_int_equal(trace[0], 0);
    assert_int_equal(trace[1], 0);
    /* Without a switch: the plain return, with the flag either way. */
    assert_int_equal(mpcrt_ctx_switched, 1); /* the last switch, back here, set it */
    assert_true(switch_and_return(NULL, NULL, 9) == expected_pair(9));
    assert_int_equal(mpcrt_ctx_switched, 0);
    assert_true(switch_and_return(NULL, NULL, -2) == expected_pair(-2));
    assert_int_equal(mpcrt_ctx_switched, 0);
    free(stack);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switch_runs_entry_and_returns),
        cmocka_unit_test(test_fp_environment_is_per_context),
        cmocka_unit_test(test_x87_control_word_survives_ult_switches),
        cmocka_unit_test(test_return_thunk_after_switch),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
