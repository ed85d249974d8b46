# gdb helper for programs built with mpcc -fmpc-privatize: debug information describes the master copy
# of a privatized variable, while each rank (and each OpenMP thread) works on its own copy.
#
#   (gdb) source <prefix>/share/mpcrt/gdb/mpcrt-priv-gdb.py
#   (gdb) print $priv(counter)        # the current rank's copy of a per-rank variable
#   (gdb) print $privult(tls_counter) # the current user-level thread's copy of a __thread/threadprivate one
#   (gdb) print $priv(counter, DELTA) # the copy at a given delta (`info mpcrt` shows the current ones)
#
# The current copy is selected by the thread-local deltas __mpc_priv_delta / __mpc_ult_delta of the
# kernel thread gdb has selected, i.e. of the rank or OpenMP thread running on that core when it stopped.
import gdb


def _delta(name):
    try:
        return int(gdb.parse_and_eval(name))
    except gdb.error as error:
        raise gdb.GdbError("cannot read %s (is the program running and linked with libmpcrt?): %s"
                           % (name, error))


def _copy(value, delta):
    if value.address is None:
        raise gdb.GdbError("$priv needs a variable (an lvalue), not an expression")
    address = int(value.address.cast(gdb.lookup_type("unsigned long"))) + delta
    pointer = gdb.Value(address).cast(value.type.pointer())
    return pointer.dereference()


class PrivatizedValue(gdb.Function):
    """$priv(VARIABLE [, DELTA]): the current rank's copy of a privatized variable (or the copy at DELTA)."""

    def __init__(self):
        super().__init__("priv")

    def invoke(self, value, delta=None):
        return _copy(value, int(delta) if delta is not None else _delta("__mpc_priv_delta"))


class PrivatizedUltValue(gdb.Function):
    """$privult(VARIABLE): the current user-level thread's copy of an ex-__thread/threadprivate variable."""

    def __init__(self):
        super().__init__("privult")

    def invoke(self, value):
        return _copy(value, _delta("__mpc_ult_delta"))


class InfoMpcrt(gdb.Command):
    """info mpcrt: the privatization deltas of the selected thread."""

    def __init__(self):
        super().__init__("info mpcrt", gdb.COMMAND_STATUS)

    def invoke(self, argument, from_tty):
        print("__mpc_priv_delta = %d (rank copy)" % _delta("__mpc_priv_delta"))
        print("__mpc_ult_delta  = %d (user-level thread copy)" % _delta("__mpc_ult_delta"))


PrivatizedValue()
PrivatizedUltValue()
InfoMpcrt()
