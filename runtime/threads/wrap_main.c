/* The thread-mode entry point linked into every program built by mpcc (as libmpcrt_main.a, together with
 * -Wl,--wrap=main): the program's main becomes the body of every rank. It must live in the executable,
 * not in libmpcrt.so, because only the executable's link resolves __real_main to the user's main. */
#include "mpcrt.h"

int __real_main(int argc, char **argv, char **envp);
int __wrap_main(int argc, char **argv, char **envp);

int __wrap_main(int argc, char **argv, char **envp)
{
    return mpcrt_main(argc, argv, envp, __real_main);
}
