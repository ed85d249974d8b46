/* Every function of the API table (runtime/mpi/api/functions.def) is declared with the table's prototype
 * (checked at compile time by the generated api_calls.c, which also calls each one), and exported by
 * libmpcrt both as PMPI_x and as MPI_x, the latter an alias of the former. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "api_table.h"

static const struct api_entry *find(const char *name)
{
    for (int i = 0; i < api_table_size; i++)
        if (strcmp(api_table[i].name, name) == 0)
            return &api_table[i];
    return NULL;
}

static void every_mpi_function_is_an_alias_of_its_pmpi_function(void **state)
{
    (void)state;
    for (int i = 0; i < api_table_size; i++) {
        const struct api_entry *e = &api_table[i];
        if (e->mpi != e->pmpi)
            fail_msg("%s and P%s are different functions", e->name, e->name);
    }
}

static void every_function_is_exported_under_both_names(void **state)
{
    (void)state;
    char pname[128];
    for (int i = 0; i < api_table_size; i++) {
        const struct api_entry *e = &api_table[i];
        snprintf(pname, sizeof pname, "P%s", e->name);
        void *mpi = dlsym(RTLD_DEFAULT, e->name);
        void *pmpi = dlsym(RTLD_DEFAULT, pname);
        if (!mpi || !pmpi)
            fail_msg("%s is not exported", mpi ? pname : e->name);
        if (mpi != (void *)e->mpi || pmpi != (void *)e->pmpi)
            fail_msg("%s: the exported address differs from the linked one", e->name);
    }
}

static void table_covers_mpi_4_and_marks_what_is_implemented(void **state)
{
    (void)state;
    /* MPI 4.0 has about 600 C functions with the large-count variants; MPICH 4.0.2 declares 621 */
    assert_in_range(api_table_size, 600, 700);
    const char *implemented[] = {"MPI_Init", "MPI_Finalize", "MPI_Comm_rank", "MPI_Wtime", "MPI_Error_string",
                                 "MPI_Comm_c2f", "MPI_Status_f2c", "MPI_Aint_add", "MPI_Pcontrol"};
    for (size_t i = 0; i < sizeof implemented / sizeof implemented[0]; i++) {
        const struct api_entry *e = find(implemented[i]);
        assert_non_null(e);
        if (e->stub)
            fail_msg("%s is a stub", implemented[i]);
    }
    const struct api_entry *tool = find("MPI_T_init_thread");
    assert_non_null(tool);
}

int main(void)
{
    /* keeps the calls to every function in the link */
    void (*volatile call_all)(void) = api_call_all;
    (void)call_all;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_mpi_function_is_an_alias_of_its_pmpi_function),
        cmocka_unit_test(every_function_is_exported_under_both_names),
        cmocka_unit_test(table_covers_mpi_4_and_marks_what_is_implemented),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
