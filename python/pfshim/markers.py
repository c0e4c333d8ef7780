# SPDX-License-Identifier: MIT
"""The marker API of the preloaded libpfshim.so (include/pfshim.h), through
ctypes: its pfshim_v1_* functions are found in the process's global scope,
where LD_PRELOAD put them, so nothing is loaded that the program did not
load. Without the library every call is a no-op, as the C header's are."""
import ctypes
import functools

INACTIVE, MISUSE, FAILED = -1, -2, -3    # pfshim.h's return values
MAX_EVENTS = 64                          # PFSHIM_MAX_EVENTS


class _Counts(ctypes.Structure):
    _fields_ = [("nr", ctypes.c_int),
                ("value", ctypes.c_uint64 * MAX_EVENTS),
                ("enabled", ctypes.c_uint64 * MAX_EVENTS),
                ("running", ctypes.c_uint64 * MAX_EVENTS)]


def _lookup():
    try:
        scope = ctypes.CDLL(None)
    except OSError:
        return None
    try:
        f = {name: getattr(scope, "pfshim_v1_" + name)
             for name in ("region", "begin", "end", "read", "report")}
    except AttributeError:
        return None                      # not preloaded
    f["region"].restype = ctypes.c_uint32
    f["region"].argtypes = [ctypes.c_char_p]
    for name in ("begin", "end"):
        f[name].restype = ctypes.c_int
        f[name].argtypes = [ctypes.c_uint32]
    f["read"].restype = ctypes.c_int
    f["read"].argtypes = [ctypes.POINTER(_Counts)]
    f["report"].restype = ctypes.c_int
    f["report"].argtypes = []
    return f


_lib = _lookup()
_handles = {}                            # name -> handle: interned once per process


def active():
    """True when the preloaded library counts this process."""
    return _lib is not None and _lib["read"](None) == 0


def read_counts():
    """The calling thread's counts since its first marker call (a first call
    starts them), in PFSHIM_EVENTS order: a list of (value, enabled_ns,
    running_ns); [] without the library."""
    if _lib is None:
        return []
    c = _Counts()
    if _lib["read"](ctypes.byref(c)) != 0:
        return []
    return [(c.value[i], c.enabled[i], c.running[i]) for i in range(c.nr)]


def report():
    """Write a report now (reason "explicit"); pfshim.h's return value."""
    return _lib["report"]() if _lib is not None else INACTIVE


class region:
    """A marker region by name: `with region("x"):` or `@region("x")`.
    Regions nest and are per thread, as in C; the handle is looked up once."""

    __slots__ = ("name", "handle")

    def __init__(self, name):
        self.name = name
        self.handle = 0
        if _lib is not None:
            handle = _handles.get(name)
            if handle is None:
                handle = _handles[name] = _lib["region"](name.encode())
            self.handle = handle

    def begin(self):
        return _lib["begin"](self.handle) if self.handle else INACTIVE

    def end(self):
        return _lib["end"](self.handle) if self.handle else INACTIVE

    def __enter__(self):
        self.begin()
        return self

    def __exit__(self, *exc):
        self.end()
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def counted(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return counted
