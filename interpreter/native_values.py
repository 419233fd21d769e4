"""Values as the C loader reads them: the tags of runtime.c's values, a Python value flattened to ints
(`_value`), and the int buffers handed to C. Shared by the state loader (native_engine.py) and the plan
builder's tables (native_plan.py), which import it, never each other."""
from __future__ import annotations

import ctypes
from array import array

T_NONE, T_BOOL, T_INT, T_STR, T_LIST = 0, 1, 2, 3, 4


class _Unflattenable(Exception):
    pass


def _buf(code, n):
    return array(code, bytes(array(code).itemsize * max(1, n)))


def _ptr(arr, ctype):
    addr, _ = arr.buffer_info()
    return ctypes.cast(addr, ctypes.POINTER(ctype))


def _value(lib, x, out):
    if x is None:
        out.append(T_NONE)
    elif x is True or x is False:
        out += [T_BOOL, int(x)]
    elif isinstance(x, int):
        if not -(1 << 63) < x < (1 << 63):
            raise _Unflattenable
        out += [T_INT, x]
    elif isinstance(x, str):
        i = lib.texts.get(x)
        if i is None:
            raise _Unflattenable
        out += [T_STR, i]
    elif isinstance(x, (list, tuple)):
        out += [T_LIST, len(x)]
        for y in x:
            _value(lib, y, out)
    else:
        raise _Unflattenable
