// Second translation unit of priv_cxx: the inline and template variables are defined here too (weak
// definitions after privatization); both files must reach the same per-rank object.
template <typename T> struct holder {
    static T value;
};
template <typename T> T holder<T>::value = T(40);
inline int inline_var = 30;

int other_inline_var()
{
    return inline_var;
}

int other_holder_value()
{
    return holder<int>::value;
}

void other_bump(int by)
{
    inline_var += by;
    holder<int>::value += by;
}
