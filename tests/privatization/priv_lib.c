/* A privatized shared library used by priv_dso: its globals are per rank too, and addresses cross the
 * module boundary in both directions, in code and in initializers. */
int lib_counter = 7;
extern int exe_var;                /* defined in the executable */
int *lib_points_to_exe = &exe_var; /* initializer holding an address in another module */
static int lib_static = 70;

int lib_get_static(void)
{
    return lib_static;
}

void lib_set_static(int value)
{
    lib_static = value;
}

int *lib_counter_address(void)
{
    return &lib_counter;
}

int lib_read_exe_var(void)
{
    return exe_var;
}
