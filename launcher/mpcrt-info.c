/* mpcrt-info: prints the runtime's tunables with their current values (what `mpcrun --show-config` shows). */
#include "../runtime/threads/config.h"

#include <stdio.h>

int main(void)
{
    printf("mpcrt %s settings (environment variables):\n", MPCRT_VERSION_TEXT);
    mpcrt_config_print(stdout);
    return 0;
}
