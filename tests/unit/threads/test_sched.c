/* Scheduling order on one VP: FIFO among equal priorities, Taboada's priority aging, queries and hooks. */
#include "test_util.h"

#include <string.h>

static char order[256];
static _Atomic int norder;

typedef struct {
    char name;
    int turns;
} turn_arg_t;

static void *take_turns(void *arg)
{
    turn_arg_t *t = arg;
    for (int i = 0; i < t->turns; i++) {
        order[atomic_fetch_add(&norder, 1)] = t->name;
        mpcrt_yield();
    }
    return NULL;
}

typedef struct {
    turn_arg_t args[4];
    int prio[4];
    int n;
} scenario_t;

/* The starter creates every ULT before any of them runs (same VP: creation only queues), then joins. */
static void *starter(void *arg)
{
    scenario_t *s = arg;
    mpcrt_ult_t *u[4];
    for (int i = 0; i < s->n; i++)
        u[i] = spawn(take_turns, &s->args[i], -1, s->prio[i]);
    for (int i = 0; i < s->n; i++)
        join(u[i]);
    return NULL;
}

static void run_scenario(scenario_t *s)
{
    memset(order, 0, sizeof order);
    atomic_store(&norder, 0);
    run_on_vp(starter, s, 0);
}

static void test_equal_priorities_round_robin(void **state)
{
    (void)state;
    scenario_t s = {.args = {{'A', 3}, {'B', 3}, {'C', 3}}, .prio = {0, 0, 0}, .n = 3};
    run_scenario(&s);
    assert_string_equal(order, "ABCABCABC");
}

static void test_priority_aging_gives_base_plus_one_turns(void **state)
{
    (void)state;
    /* B (base 5) is picked at 5,4,3,2,1 before reaching level 0, then shares level 0 with A and C; a pick
     * at 0 resets it to 5, so from then on it gets 6 turns for each turn of A and C. */
    scenario_t s = {.args = {{'A', 4}, {'B', 17}, {'C', 4}}, .prio = {0, 5, 0}, .n = 3};
    run_scenario(&s);
    assert_string_equal(order, "BBBBBACBBBBBBACBBBBBBACAC");
}

static void *change_own_priority(void *arg)
{
    (void)arg;
    mpcrt_ult_t *self = mpcrt_ult_self();
    mpcrt_ult_set_priority(self, 20, 20);
    int base, current;
    mpcrt_ult_get_priority(self, &base, &current);
    assert_int_equal(base, 20);
    assert_int_equal(current, 20);
    mpcrt_ult_set_priority(self, 99, -3); /* clamped to the valid range */
    mpcrt_ult_get_priority(self, &base, &current);
    assert_int_equal(base, MPCRT_PRIO_MAX);
    assert_int_equal(current, MPCRT_PRIO_MIN);
    return NULL;
}

static void test_priority_setters_clamp(void **state)
{
    (void)state;
    run_on_vp(change_own_priority, NULL, 0);
}

static void *report_identity(void *arg)
{
    int *out = arg;
    mpcrt_ult_t *self = mpcrt_ult_self();
    out[0] = mpcrt_ult_kind(self);
    out[1] = mpcrt_self_rank();
    out[2] = mpcrt_self_vp();
    out[3] = mpcrt_ult_vp(self);
    return (void *)(intptr_t)42;
}

static void test_queries_kind_rank_vp(void **state)
{
    (void)state;
    int seen[4];
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    attr.kind = MPCRT_ULT_PROGRESS;
    attr.rank = 7;
    attr.vp = mpcrt_sched_num_vps() - 1;
    mpcrt_ult_t *u;
    assert_int_equal(mpcrt_ult_create(&u, report_identity, seen, &attr), 0);
    assert_ptr_equal(join(u), (void *)(intptr_t)42);
    assert_int_equal(seen[0], MPCRT_ULT_PROGRESS);
    assert_int_equal(seen[1], 7);
    assert_int_equal(seen[2], attr.vp);
    assert_int_equal(seen[3], attr.vp);
    assert_null(mpcrt_ult_self()); /* the test's own thread is no ULT */
    assert_int_equal(mpcrt_self_vp(), -1);
}

static void test_create_rejects_bad_attributes(void **state)
{
    (void)state;
    mpcrt_ult_attr_t attr;
    mpcrt_ult_t *u;
    mpcrt_ult_attr_init(&attr);
    attr.vp = mpcrt_sched_num_vps();
    assert_int_equal(mpcrt_ult_create(&u, report_identity, NULL, &attr), -22);
    mpcrt_ult_attr_init(&attr);
    attr.base_priority = 21;
    assert_int_equal(mpcrt_ult_create(&u, report_identity, NULL, &attr), -22);
    mpcrt_ult_attr_init(&attr);
    attr.kind = MPCRT_ULT_IDLE;
    assert_int_equal(mpcrt_ult_create(&u, report_identity, NULL, &attr), -22);
    assert_int_equal(mpcrt_ult_create(&u, NULL, NULL, NULL), -22);
}

extern __thread intptr_t __mpc_priv_delta, __mpc_ult_delta;

static void *check_deltas(void *arg)
{
    intptr_t expected = (intptr_t)arg;
    mpcrt_ult_set_priv_deltas(mpcrt_ult_self(), expected, expected + 1);
    for (int i = 0; i < 50; i++) {
        mpcrt_yield(); /* the other ULT runs with its own deltas in between */
        assert_int_equal(__mpc_priv_delta, expected);
        assert_int_equal(__mpc_ult_delta, expected + 1);
    }
    return NULL;
}

static void *two_delta_ults(void *arg)
{
    (void)arg;
    mpcrt_ult_t *a = spawn(check_deltas, (void *)(intptr_t)4096, -1, 0);
    mpcrt_ult_t *b = spawn(check_deltas, (void *)(intptr_t)-8192, -1, 0);
    join(a);
    join(b);
    assert_int_equal(__mpc_priv_delta, 0); /* the starter's own view is untouched */
    return NULL;
}

static void test_switch_stores_privatization_deltas(void **state)
{
    (void)state;
    run_on_vp(two_delta_ults, NULL, 0);
}

static mpcrt_ult_t *_Atomic owner_ult;
static _Atomic int owner_may_exit;

static void *owner(void *arg)
{
    (void)arg;
    mpcrt_ult_set_priv_deltas(mpcrt_ult_self(), 1 << 20, 1 << 12);
    atomic_store(&owner_ult, mpcrt_ult_self());
    while (!atomic_load(&owner_may_exit))
        mpcrt_yield();
    return NULL;
}

static void *call_for_owner(void *arg)
{
    (void)arg;
    mpcrt_ult_set_priv_deltas(mpcrt_ult_self(), 77, 88);
    mpcrt_priv_view_t saved;
    mpcrt_priv_enter(atomic_load(&owner_ult), &saved);
    assert_int_equal(__mpc_priv_delta, 1 << 20);
    assert_int_equal(__mpc_ult_delta, 1 << 12);
    mpcrt_yield(); /* the owner's view survives a switch in the middle of the callback */
    assert_int_equal(__mpc_priv_delta, 1 << 20);
    mpcrt_priv_leave(&saved);
    assert_int_equal(__mpc_priv_delta, 77);
    assert_int_equal(__mpc_ult_delta, 88);
    return NULL;
}

static void test_user_code_runs_in_its_owners_view(void **state)
{
    (void)state;
    atomic_store(&owner_ult, NULL);
    atomic_store(&owner_may_exit, 0);
    mpcrt_ult_t *o = spawn(owner, NULL, 0, 0);
    while (!atomic_load(&owner_ult))
        ;
    join(spawn(call_for_owner, NULL, mpcrt_sched_num_vps() - 1, 0));
    join(spawn(call_for_owner, NULL, 0, 0));
    /* A kernel thread (e.g. a user pthread running a callback) too. */
    mpcrt_priv_view_t saved;
    mpcrt_priv_enter(atomic_load(&owner_ult), &saved);
    assert_int_equal(__mpc_priv_delta, 1 << 20);
    mpcrt_priv_leave(&saved);
    assert_int_equal(__mpc_priv_delta, 0);
    atomic_store(&owner_may_exit, 1);
    join(o);
}

static _Atomic int starts, exits, switches;
static void on_start(mpcrt_ult_t *u) { (void)u; atomic_fetch_add(&starts, 1); }
static void on_exit_hook(mpcrt_ult_t *u) { (void)u; atomic_fetch_add(&exits, 1); }
static void on_switch(mpcrt_ult_t *from, mpcrt_ult_t *to) { (void)from; (void)to; atomic_fetch_add(&switches, 1); }

static void test_start_exit_and_switch_hooks_run(void **state)
{
    (void)state;
    static bool registered;
    if (!registered) {
        assert_int_equal(mpcrt_sched_add_ult_start_hook(on_start), 0);
        assert_int_equal(mpcrt_sched_add_ult_exit_hook(on_exit_hook), 0);
        assert_int_equal(mpcrt_sched_add_switch_hook(on_switch), 0);
        registered = true;
    }
    int s0 = atomic_load(&starts), e0 = atomic_load(&exits), w0 = atomic_load(&switches);
    scenario_t s = {.args = {{'A', 2}, {'B', 2}}, .prio = {0, 0}, .n = 2};
    run_scenario(&s);
    assert_int_equal(atomic_load(&starts) - s0, 3); /* starter, A, B */
    assert_int_equal(atomic_load(&exits) - e0, 3);
    assert_true(atomic_load(&switches) - w0 >= 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_priorities_round_robin),
        cmocka_unit_test(test_priority_aging_gives_base_plus_one_turns),
        cmocka_unit_test(test_priority_setters_clamp),
        cmocka_unit_test(test_queries_kind_rank_vp),
        cmocka_unit_test(test_create_rejects_bad_attributes),
        cmocka_unit_test(test_switch_stores_privatization_deltas),
        cmocka_unit_test(test_user_code_runs_in_its_owners_view),
        cmocka_unit_test(test_start_exit_and_switch_hooks_run),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
