/* OMP_DISPLAY_ENV: the runtime prints its ICVs on stderr when it starts, in libgomp's format (tools and
 * users parse it), and omp_display_env() prints them on demand. The environment comes from CTest:
 * OMP_DISPLAY_ENV=true OMP_NUM_THREADS=3,2 OMP_PROC_BIND=close OMP_SCHEDULE=dynamic,4. */
#include "omp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs fn with stderr going to a file; returns what was printed (caller frees). */
static char *capture_stderr(void (*fn)(void))
{
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 2) >= 0);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    long size = ftell(tmp);
    if (size <= 0) size = lseek(fileno(tmp), 0, SEEK_END);
    char *text = calloc(1, (size_t)(size > 0 ? size : 0) + 1);
    assert_non_null(text);
    rewind(tmp);
    size_t got = fread(text, 1, (size_t)(size > 0 ? size : 0), tmp);
    text[got] = '\0';
    fclose(tmp);
    return text;
}

static void first_use(void)
{
    omp_get_max_threads(); /* starts the OpenMP layer */
}

static void on_demand_verbose(void)
{
    omp_display_env(1);
}

static char *at_start;

static void test_start_up_prints_the_environment(void **state)
{
    (void)state;
    assert_non_null(strstr(at_start, "OPENMP DISPLAY ENVIRONMENT BEGIN\n"));
    assert_non_null(strstr(at_start, "  _OPENMP = '201511'\n"));
    assert_non_null(strstr(at_start, "  OMP_NUM_THREADS = '3,2'\n"));
    assert_non_null(strstr(at_start, "  OMP_PROC_BIND = 'CLOSE'\n"));
    assert_non_null(strstr(at_start, "  OMP_SCHEDULE = 'DYNAMIC,4'\n"));
    assert_non_null(strstr(at_start, "OPENMP DISPLAY ENVIRONMENT END\n"));
    assert_null(strstr(at_start, "GOMP_SPINCOUNT")); /* implementation variables only when verbose */
}

static void test_omp_display_env_verbose(void **state)
{
    (void)state;
    char *text = capture_stderr(on_demand_verbose);
    assert_non_null(strstr(text, "OPENMP DISPLAY ENVIRONMENT BEGIN\n"));
    assert_non_null(strstr(text, "  OMP_NUM_THREADS = '3,2'\n"));
    assert_non_null(strstr(text, "GOMP_SPINCOUNT"));
    assert_non_null(strstr(text, "OPENMP DISPLAY ENVIRONMENT END\n"));
    free(text);
}

int main(void)
{
    at_start = capture_stderr(first_use);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_up_prints_the_environment),
        cmocka_unit_test(test_omp_display_env_verbose),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(at_start);
    return rc;
}
