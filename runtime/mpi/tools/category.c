/* Categories (MPI 4.0 section 15.3.9): one, "mpcrt", holding every control variable in index order; no
 * performance variables, events or subcategories yet. The set never changes while the process runs, so
 * MPI_T_category_changed always returns the same number. */
#include "tools_internal.h"
#include "../../threads/config.h"

#include <string.h>

#define CATEGORY_NAME "mpcrt"
#define CATEGORY_DESC                                                                                        \
    "mpcrt runtime settings: the MPCRT_* environment variables, read once when the runtime starts "          \
    "(mpcrun --show-config prints them)"
enum { NUM_CATEGORIES = 1 };

static bool valid_category(int cat_index)
{
    return cat_index >= 0 && cat_index < NUM_CATEGORIES;
}

/* Checks shared by the MPI_T_category_get_<members> functions. */
static int check_members_call(int cat_index, int len, const int *indices)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_category(cat_index))
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    return MPI_SUCCESS;
}

int PMPI_T_category_get_num(int *num_cat)
{
    return mpcrt_tools_return_count(num_cat, NUM_CATEGORIES);
}
MPCRT_PMPI_ALIAS(T_category_get_num)

/* Any output argument may be NULL: it is then not returned. */
int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc, int *desc_len,
                             int *num_cvars, int *num_pvars, int *num_categories)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_category(cat_index))
        return MPI_T_ERR_INVALID_INDEX;
    mpcrt_tools_copy_string(CATEGORY_NAME, name, name_len);
    mpcrt_tools_copy_string(CATEGORY_DESC, desc, desc_len);
    if (num_cvars)
        *num_cvars = mpcrt_config_count();
    if (num_pvars)
        *num_pvars = 0;
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_category_get_info)

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_category(cat_index))
        return MPI_T_ERR_INVALID_INDEX;
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_category_get_num_events)

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!cat_index)
        return MPI_T_ERR_INVALID;
    if (!name || strcmp(name, CATEGORY_NAME) != 0)
        return MPI_T_ERR_INVALID_NAME;
    *cat_index = 0;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_category_get_index)

/* The first len members (all of them when len is larger). */
int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    int rc = check_members_call(cat_index, len, indices);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = mpcrt_config_count();
    for (int i = 0; i < len && i < n; i++)
        indices[i] = i;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return check_members_call(cat_index, len, indices); /* none: nothing is written */
}
MPCRT_PMPI_ALIAS(T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    return check_members_call(cat_index, len, indices);
}
MPCRT_PMPI_ALIAS(T_category_get_categories)

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
    return check_members_call(cat_index, len, indices);
}
MPCRT_PMPI_ALIAS(T_category_get_events)

int PMPI_T_category_changed(int *update_number)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!update_number)
        return MPI_T_ERR_INVALID;
    *update_number = 0; /* variables and categories are fixed when the library is built */
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_category_changed)
