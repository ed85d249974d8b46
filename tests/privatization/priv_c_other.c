/* The other translation unit of priv_c: a global defined here and used from priv_c.c (extern across
 * files), and functions that touch it from this side. */
int other_value = 1000;

int other_get(void)
{
    return other_value;
}

void other_set(int value)
{
    other_value = value;
}

int *other_address(void)
{
    return &other_value;
}
