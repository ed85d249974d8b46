/* The MPI tool information interface (runtime/mpi/tools) without MPI_Init: every control variable mirrors
 * the configuration table (name, description, type, value in effect), the string convention of MPI 4.0
 * section 15.3.3, the error classes for bad indices, handles and sessions, init/finalize nesting, and
 * MPI_T_init_thread/MPI_T_finalize and handle traffic from several kernel threads at once (also for TSan). */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mpi.h"
#include "threads/config.h"

static void tool_init(void)
{
    int provided = -1;
    assert_int_equal(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    assert_int_equal(provided, MPI_THREAD_MULTIPLE);
}

static int setup(void **state)
{
    (void)state;
    tool_init();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return MPI_T_finalize() == MPI_SUCCESS ? 0 : -1;
}

static void every_call_needs_initialization(void **state)
{
    (void)state;
    int n = 7, idx;
    char name[16];
    int len = sizeof name;
    MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL;
    assert_int_equal(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(n, 7);
    assert_int_equal(MPI_T_cvar_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_cvar_get_index("MPCRT_EAGER_LIMIT", &idx), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_cvar_handle_alloc(0, NULL, &ch, &n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_cvar_handle_free(&ch), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_cvar_read(ch, &n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_pvar_session_create(&s), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_category_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_category_changed(&n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_category_get_cvars(0, 1, &idx), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, name, &len), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_source_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_event_get_timestamp(NULL, NULL), MPI_T_ERR_NOT_INITIALIZED);
}

static void init_and_finalize_nest(void **state)
{
    (void)state;
    int n;
    for (int i = 0; i < 3; i++)
        tool_init();
    for (int i = 0; i < 3; i++) {
        assert_int_equal(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
        assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
    }
    assert_int_equal(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(MPI_T_init_thread(MPI_THREAD_MULTIPLE, NULL), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);

    /* what a tool leaves allocated dies with the last finalize: after a new init, its handles are invalid */
    tool_init();
    MPI_T_cvar_handle ch;
    MPI_T_pvar_session s;
    assert_int_equal(MPI_T_cvar_handle_alloc(0, NULL, &ch, &n), MPI_SUCCESS);
    assert_int_equal(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
    tool_init();
    assert_int_equal(MPI_T_cvar_read(ch, &n), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_pvar_session_free(&s), MPI_T_ERR_INVALID_SESSION);
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
}

static MPI_Datatype expected_datatype(mpcrt_config_type_t type)
{
    switch (type) {
    case MPCRT_CONFIG_SIZE:
        return MPI_UNSIGNED_LONG_LONG;
    case MPCRT_CONFIG_STRING:
        return MPI_CHAR;
    default:
        return MPI_INT;
    }
}

static void cvars_mirror_the_config_table(void **state)
{
    (void)state;
    int num = -1;
    assert_int_equal(MPI_T_cvar_get_num(&num), MPI_SUCCESS);
    assert_int_equal(num, MPCRT_CFG_COUNT);
    assert_int_equal(num, mpcrt_config_count());
    for (int i = 0; i < num; i++) {
        mpcrt_config_desc_t d;
        mpcrt_config_describe(i, &d);
        char name[64], desc[512];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
        MPI_Datatype datatype = MPI_DATATYPE_NULL;
        MPI_T_enum enumtype = (MPI_T_enum)(uintptr_t)0x31415926;
        assert_int_equal(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &datatype, &enumtype, desc,
                                             &desc_len, &bind, &scope),
                         MPI_SUCCESS);
        assert_string_equal(name, d.name);
        assert_int_equal(name_len, (int)strlen(d.name) + 1);
        assert_string_equal(desc, d.doc);
        assert_int_equal(desc_len, (int)strlen(d.doc) + 1);
        assert_int_equal(verbosity, MPI_T_VERBOSITY_USER_BASIC);
        assert_true(datatype == expected_datatype(d.type));
        assert_true(enumtype == MPI_T_ENUM_NULL);
        assert_int_equal(bind, MPI_T_BIND_NO_OBJECT);
        assert_int_equal(scope, MPI_T_SCOPE_CONSTANT);

        int idx = -1;
        assert_int_equal(MPI_T_cvar_get_index(d.name, &idx), MPI_SUCCESS);
        assert_int_equal(idx, i);

        MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
        int count = -1;
        assert_int_equal(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
        assert_non_null(h);
        char text[512];
        int ival = -1;
        unsigned long long size = 0;
        switch (d.type) {
        case MPCRT_CONFIG_INT:
        case MPCRT_CONFIG_BOOL:
            assert_int_equal(count, 1);
            assert_int_equal(MPI_T_cvar_read(h, &ival), MPI_SUCCESS);
            assert_int_equal(ival, mpcrt_config_int(i));
            assert_int_equal(MPI_T_cvar_write(h, &ival), MPI_T_ERR_CVAR_SET_NEVER);
            break;
        case MPCRT_CONFIG_SIZE:
            assert_int_equal(count, 1);
            assert_int_equal(MPI_T_cvar_read(h, &size), MPI_SUCCESS);
            assert_int_equal(size, (unsigned long long)mpcrt_config_int(i));
            break;
        case MPCRT_CONFIG_STRING:
            assert_int_equal(count, (int)strlen(mpcrt_config_str(i)) + 1);
            memset(text, 'x', sizeof text);
            assert_int_equal(MPI_T_cvar_read(h, text), MPI_SUCCESS);
            assert_string_equal(text, mpcrt_config_str(i));
            assert_int_equal(text[count], 'x'); /* nothing written beyond count */
            assert_int_equal(MPI_T_cvar_write(h, "active"), MPI_T_ERR_CVAR_SET_NEVER);
            break;
        }
        assert_int_equal(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
        assert_null(h);
    }
    /* named values the runtime uses: the defaults of this test's environment (MPCRT_VPS=2 is set) */
    int idx;
    assert_int_equal(MPI_T_cvar_get_index("MPCRT_VPS", &idx), MPI_SUCCESS);
    MPI_T_cvar_handle h;
    int count, vps = 0;
    assert_int_equal(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count), MPI_SUCCESS);
    assert_int_equal(MPI_T_cvar_read(h, &vps), MPI_SUCCESS);
    assert_int_equal(vps, 2);
    assert_int_equal(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
}

/* MPCRT_EAGER_LIMIT: 17 characters. */
static void names_follow_the_string_convention(void **state)
{
    (void)state;
    int idx;
    assert_int_equal(MPI_T_cvar_get_index("MPCRT_EAGER_LIMIT", &idx), MPI_SUCCESS);
    char name[32];
    int len;

    memset(name, '#', sizeof name);
    len = 5; /* truncated to 4 characters and a terminator; the length says what the full name needs */
    assert_int_equal(MPI_T_cvar_get_info(idx, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_string_equal(name, "MPCR");
    assert_int_equal(name[5], '#');
    assert_int_equal(len, 18);

    memset(name, '#', sizeof name);
    len = 18; /* exactly fits */
    assert_int_equal(MPI_T_cvar_get_info(idx, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_string_equal(name, "MPCRT_EAGER_LIMIT");
    assert_int_equal(len, 18);

    memset(name, '#', sizeof name);
    len = 17; /* one short: the last character gives way to the terminator */
    assert_int_equal(MPI_T_cvar_get_info(idx, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_string_equal(name, "MPCRT_EAGER_LIMI");
    assert_int_equal(len, 18);

    memset(name, '#', sizeof name);
    len = 0; /* length only, buffer untouched */
    assert_int_equal(MPI_T_cvar_get_info(idx, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(len, 18);
    assert_int_equal(name[0], '#');

    len = 3; /* NULL buffer: length only */
    assert_int_equal(MPI_T_cvar_get_info(idx, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(len, 18);

    /* NULL length: the buffer is ignored */
    assert_int_equal(MPI_T_cvar_get_info(idx, name, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(name[0], '#');

    /* descriptions too */
    mpcrt_config_desc_t d;
    mpcrt_config_describe(idx, &d);
    char desc[8];
    int desc_len = sizeof desc;
    assert_int_equal(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, NULL, NULL, desc, &desc_len, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(desc_len, (int)strlen(d.doc) + 1);
    assert_int_equal(strlen(desc), 7);
    assert_memory_equal(desc, d.doc, 7);

    /* category names and descriptions */
    len = 4;
    assert_int_equal(MPI_T_category_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    assert_string_equal(name, "mpc");
    assert_int_equal(len, 6);
}

static void bad_indices_and_names(void **state)
{
    (void)state;
    int num, n = 0, idx = -5;
    MPI_T_cvar_handle h;
    assert_int_equal(MPI_T_cvar_get_num(&num), MPI_SUCCESS);
    int bad[] = {-1, num, num + 100, INT_MIN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(MPI_T_cvar_get_info(bad[i], NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                         MPI_T_ERR_INVALID_INDEX);
        assert_int_equal(MPI_T_cvar_handle_alloc(bad[i], NULL, &h, &n), MPI_T_ERR_INVALID_INDEX);
    }
    assert_int_equal(MPI_T_cvar_get_index("MPCRT_NO_SUCH_SETTING", &idx), MPI_T_ERR_INVALID_NAME);
    assert_int_equal(MPI_T_cvar_get_index("mpcrt_eager_limit", &idx), MPI_T_ERR_INVALID_NAME);
    assert_int_equal(idx, -5);
    assert_int_equal(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID);

    assert_int_equal(MPI_T_category_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_category_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_category_get_cvars(1, 1, &idx), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_category_get_num_events(1, &n), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_category_get_cvars(0, -1, &idx), MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_category_get_index("MPCRT", &idx), MPI_T_ERR_INVALID_NAME);

    assert_int_equal(
        MPI_T_pvar_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_pvar_get_index("MPCRT_EAGER_LIMIT", MPI_T_PVAR_CLASS_COUNTER, &idx),
                     MPI_T_ERR_INVALID_NAME);
    assert_int_equal(
        MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_event_get_index("anything", &idx), MPI_T_ERR_INVALID_NAME);
    MPI_T_event_registration reg;
    assert_int_equal(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    MPI_Count ts;
    assert_int_equal(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                     MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_source_get_timestamp(0, &ts), MPI_T_ERR_INVALID_INDEX);
}

static void bad_handles(void **state)
{
    (void)state;
    int n, value;
    MPI_T_cvar_handle h, copy;
    assert_int_equal(MPI_T_cvar_handle_alloc(0, NULL, &h, &n), MPI_SUCCESS);
    copy = h;
    assert_int_equal(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    assert_int_equal(MPI_T_cvar_handle_free(&copy), MPI_T_ERR_INVALID_HANDLE); /* freed twice */
    assert_int_equal(MPI_T_cvar_read(copy, &value), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_cvar_write(copy, &value), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &value), MPI_T_ERR_INVALID_HANDLE);
    /* garbage is rejected without being dereferenced */
    MPI_T_cvar_handle garbage = (MPI_T_cvar_handle)(uintptr_t)0x31415926;
    assert_int_equal(MPI_T_cvar_read(garbage, &value), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_cvar_handle_free(&garbage), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_cvar_handle_free(NULL), MPI_T_ERR_INVALID);
    /* an object of another kind */
    MPI_T_pvar_session s;
    assert_int_equal(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    assert_int_equal(MPI_T_cvar_read((MPI_T_cvar_handle)(void *)s, &value), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_pvar_session_free(&s), MPI_SUCCESS);

    assert_int_equal(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &value, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_enum_get_info((MPI_T_enum)(uintptr_t)0x31415926, &n, NULL, NULL),
                     MPI_T_ERR_INVALID_HANDLE);

    MPI_Info info;
    MPI_Count ts;
    assert_int_equal(MPI_T_event_handle_get_info(NULL, &info), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_handle_set_info(NULL, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_register_callback(NULL, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL),
                     MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_callback_get_info(NULL, MPI_T_CB_REQUIRE_NONE, &info),
                     MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_callback_set_info(NULL, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL),
                     MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_handle_free(NULL, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_set_dropped_handler(NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_read(NULL, 0, &value), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_copy(NULL, &value), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_get_timestamp(NULL, &ts), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_event_get_source(NULL, &n), MPI_T_ERR_INVALID_HANDLE);
}

static void pvar_sessions_are_objects(void **state)
{
    (void)state;
    int n = -1, count;
    long long value;
    assert_int_equal(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
    assert_int_equal(n, 0);
    MPI_T_pvar_session a = MPI_T_PVAR_SESSION_NULL, b = MPI_T_PVAR_SESSION_NULL;
    assert_int_equal(MPI_T_pvar_session_create(&a), MPI_SUCCESS);
    assert_int_equal(MPI_T_pvar_session_create(&b), MPI_SUCCESS);
    assert_non_null(a);
    assert_non_null(b);
    assert_ptr_not_equal(a, b);
    assert_int_equal(MPI_T_pvar_start(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    assert_int_equal(MPI_T_pvar_stop(a, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    assert_int_equal(MPI_T_pvar_reset(b, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    /* reads and writes name one handle */
    assert_int_equal(MPI_T_pvar_read(a, MPI_T_PVAR_ALL_HANDLES, &value), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_pvar_readreset(a, MPI_T_PVAR_ALL_HANDLES, &value), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_pvar_write(a, MPI_T_PVAR_ALL_HANDLES, &value), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_pvar_start(a, MPI_T_PVAR_HANDLE_NULL), MPI_T_ERR_INVALID_HANDLE);
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    assert_int_equal(MPI_T_pvar_handle_alloc(a, 0, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    assert_int_equal(MPI_T_pvar_handle_free(a, &h), MPI_T_ERR_INVALID_HANDLE);

    MPI_T_pvar_session stale = a;
    assert_int_equal(MPI_T_pvar_session_free(&a), MPI_SUCCESS);
    assert_null(a);
    assert_int_equal(MPI_T_pvar_session_free(&stale), MPI_T_ERR_INVALID_SESSION);
    assert_int_equal(MPI_T_pvar_start(stale, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
    assert_int_equal(MPI_T_pvar_read(stale, MPI_T_PVAR_ALL_HANDLES, &value), MPI_T_ERR_INVALID_SESSION);
    assert_int_equal(MPI_T_pvar_handle_alloc(stale, 0, NULL, &h, &count), MPI_T_ERR_INVALID_SESSION);
    assert_int_equal(MPI_T_pvar_stop(MPI_T_PVAR_SESSION_NULL, MPI_T_PVAR_ALL_HANDLES),
                     MPI_T_ERR_INVALID_SESSION);
    assert_int_equal(MPI_T_pvar_session_free(&b), MPI_SUCCESS);
}

static void one_category_holds_every_cvar(void **state)
{
    (void)state;
    int num_cat = -1, num_cvars = -1, num_pvars = -1, num_sub = -1, n = -1, idx = -1;
    assert_int_equal(MPI_T_category_get_num(&num_cat), MPI_SUCCESS);
    assert_int_equal(num_cat, 1);
    char name[32];
    int len = sizeof name;
    assert_int_equal(MPI_T_category_get_info(0, name, &len, NULL, NULL, &num_cvars, &num_pvars, &num_sub),
                     MPI_SUCCESS);
    assert_string_equal(name, "mpcrt");
    assert_int_equal(num_cvars, MPCRT_CFG_COUNT);
    assert_int_equal(num_pvars, 0);
    assert_int_equal(num_sub, 0);
    assert_int_equal(MPI_T_category_get_index("mpcrt", &idx), MPI_SUCCESS);
    assert_int_equal(idx, 0);
    assert_int_equal(MPI_T_category_get_num_events(0, &n), MPI_SUCCESS);
    assert_int_equal(n, 0);

    int indices[MPCRT_CFG_COUNT + 2];
    for (int i = 0; i < MPCRT_CFG_COUNT + 2; i++)
        indices[i] = -1;
    assert_int_equal(MPI_T_category_get_cvars(0, 3, indices), MPI_SUCCESS);
    assert_int_equal(indices[2], 2);
    assert_int_equal(indices[3], -1); /* only len entries */
    assert_int_equal(MPI_T_category_get_cvars(0, MPCRT_CFG_COUNT + 2, indices), MPI_SUCCESS);
    for (int i = 0; i < MPCRT_CFG_COUNT; i++)
        assert_int_equal(indices[i], i);
    assert_int_equal(indices[MPCRT_CFG_COUNT], -1);
    assert_int_equal(MPI_T_category_get_pvars(0, 2, indices + MPCRT_CFG_COUNT), MPI_SUCCESS);
    assert_int_equal(MPI_T_category_get_categories(0, 2, indices + MPCRT_CFG_COUNT), MPI_SUCCESS);
    assert_int_equal(MPI_T_category_get_events(0, 2, indices + MPCRT_CFG_COUNT), MPI_SUCCESS);
    assert_int_equal(indices[MPCRT_CFG_COUNT], -1);

    int first = -1, second = -2;
    assert_int_equal(MPI_T_category_changed(&first), MPI_SUCCESS);
    assert_int_equal(MPI_T_category_changed(&second), MPI_SUCCESS);
    assert_int_equal(first, second);

    assert_int_equal(MPI_T_event_get_num(&n), MPI_SUCCESS);
    assert_int_equal(n, 0);
    assert_int_equal(MPI_T_source_get_num(&n), MPI_SUCCESS);
    assert_int_equal(n, 0);
}

enum { THREADS = 8, ROUNDS = 300 };
static _Atomic int failures;

static void *tool_thread(void *arg)
{
    int eager_index = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        int provided, count, num;
        unsigned long long eager = 0;
        MPI_T_cvar_handle h;
        MPI_T_pvar_session s;
        int ok = MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS &&
                 provided == MPI_THREAD_MULTIPLE && MPI_T_cvar_get_num(&num) == MPI_SUCCESS &&
                 num == MPCRT_CFG_COUNT &&
                 MPI_T_cvar_handle_alloc(eager_index, NULL, &h, &count) == MPI_SUCCESS &&
                 MPI_T_pvar_session_create(&s) == MPI_SUCCESS && MPI_T_cvar_read(h, &eager) == MPI_SUCCESS &&
                 eager == (unsigned long long)mpcrt_config_int(MPCRT_CFG_EAGER_LIMIT) &&
                 MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES) == MPI_SUCCESS &&
                 MPI_T_pvar_session_free(&s) == MPI_SUCCESS && MPI_T_cvar_handle_free(&h) == MPI_SUCCESS &&
                 MPI_T_finalize() == MPI_SUCCESS;
        if (!ok)
            atomic_fetch_add(&failures, 1);
    }
    return NULL;
}

/* Each thread initializes, allocates, reads, frees and finalizes on its own, so the count goes to zero
 * and back while others hold handles: nobody's handle may be freed under it, every call must succeed,
 * and the interface ends finalized. */
static void threads_init_and_finalize_concurrently(void **state)
{
    (void)state;
    int eager_index, n;
    tool_init();
    assert_int_equal(MPI_T_cvar_get_index("MPCRT_EAGER_LIMIT", &eager_index), MPI_SUCCESS);
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, tool_thread, (void *)(intptr_t)eager_index), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    assert_int_equal(failures, 0);
    assert_int_equal(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_call_needs_initialization),
        cmocka_unit_test(init_and_finalize_nest),
        cmocka_unit_test_setup_teardown(cvars_mirror_the_config_table, setup, teardown),
        cmocka_unit_test_setup_teardown(names_follow_the_string_convention, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_indices_and_names, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_handles, setup, teardown),
        cmocka_unit_test_setup_teardown(pvar_sessions_are_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(one_category_holds_every_cvar, setup, teardown),
        cmocka_unit_test(threads_init_and_finalize_concurrently),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
