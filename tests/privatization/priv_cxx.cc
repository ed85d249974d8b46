// Privatization of C++ globals with dynamic initialization: a std::vector and a std::string per rank
// (constructed once per rank, destroyed when the rank ends), namespace, class-static, inline and
// template variables (COMDAT), and a function-local static object.
#include <mpi.h>
#include <cstdio>
#include <string>
#include <vector>

int priv_checks __attribute__((mpc_shared)), priv_failures __attribute__((mpc_shared));
int destroyed __attribute__((mpc_shared));

#define CHECK(rank, cond)                                                                                 \
    do {                                                                                                  \
        __atomic_fetch_add(&priv_checks, 1, __ATOMIC_RELAXED);                                            \
        if (!(cond)) {                                                                                    \
            __atomic_fetch_add(&priv_failures, 1, __ATOMIC_RELAXED);                                      \
            std::printf("rank %d: line %d: check failed: %s\n", (rank), __LINE__, #cond);                \
        }                                                                                                 \
    } while (0)

std::vector<int> values(3, 7);
std::string text = "hello";
namespace app {
int counter = 10;
}
struct config {
    static int level;
};
int config::level = 20;
inline int inline_var = 30;
template <typename T> struct holder {
    static T value;
};
template <typename T> T holder<T>::value = T(40);

// Records its rank when destroyed, so that the test can see every rank's object destroyed once.
struct witness {
    int rank = -1;
    ~witness()
    {
        if (rank >= 0) {
            __atomic_fetch_add(&destroyed, 1, __ATOMIC_RELAXED);
            std::printf("destroyed witness of rank %d\n", rank);
        }
    }
};
witness w;

int other_inline_var();
int other_holder_value();
void other_bump(int by);

static std::string &tag()
{
    static std::string value = "tag"; // function-local static object, guarded: once per rank
    return value;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK(rank, values.size() == 3 && values[0] == 7 && text == "hello");
    CHECK(rank, app::counter == 10 && config::level == 20 && inline_var == 30 && holder<int>::value == 40);
    CHECK(rank, tag() == "tag");

    for (int i = 0; i <= rank; i++)
        values.push_back(rank);
    text += " from rank " + std::to_string(rank);
    app::counter += rank;
    config::level += rank;
    other_bump(rank); // through the other translation unit's view of the same variables
    tag() += std::to_string(rank);
    w.rank = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK(rank, values.size() == 3u + rank + 1 && values.back() == rank && values[2] == 7);
    CHECK(rank, text == "hello from rank " + std::to_string(rank));
    CHECK(rank, app::counter == 10 + rank && config::level == 20 + rank && inline_var == 30 + rank);
    CHECK(rank, holder<int>::value == 40 + rank && tag() == "tag" + std::to_string(rank));
    CHECK(rank, other_inline_var() == 30 + rank && other_holder_value() == 40 + rank);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("%d ranks, %d checks, %d failures\n", size, priv_checks, priv_failures);
    MPI_Finalize();
    return priv_failures != 0;
}
