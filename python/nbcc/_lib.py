"""_lib.py: the C libraries through ctypes.  Finds libnbcc.so and
libnbrt.so (built into the package by its setup.py, or named by
NBCC_LIBDIR, or installed by `make install`), declares the functions of
nbcc.h and nbrt.h the package calls, and reads text that C writes to a
FILE *.  ctypes releases the GIL around every call, so a kernel runs
while other Python threads go on."""

import ctypes
import os

SOVERSION = "0"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _open(where):
    # libnbcc first and global: libnbrt.so.0 needs libnbcc.so.0, which
    # the loader then finds loaded by its soname whatever the directory
    cc = ctypes.CDLL(os.path.join(where, "libnbcc.so." + SOVERSION),
                     mode=ctypes.RTLD_GLOBAL)
    rt = ctypes.CDLL(os.path.join(where, "libnbrt.so." + SOVERSION))
    return cc, rt


def _load():
    env = os.environ.get("NBCC_LIBDIR")
    if env:
        return _open(env)  # asked for: its failure is the answer
    if os.path.exists(os.path.join(_HERE, "libnbrt.so." + SOVERSION)):
        return _open(_HERE)
    try:
        return _open("")  # the loader's search: a `make install`
    except OSError as e:
        raise ImportError(
            "nbcc: libnbrt.so.%s not found: install the package with "
            "`pip install ./python` (it builds the libraries), or set "
            "NBCC_LIBDIR to a build directory (%s)" % (SOVERSION, e)) from e


cc, rt = _load()
libc = ctypes.CDLL(None)

c_int, c_double, c_size_t = ctypes.c_int, ctypes.c_double, ctypes.c_size_t
c_char_p, c_void_p = ctypes.c_char_p, ctypes.c_void_p
P_double = ctypes.POINTER(c_double)


class Output(ctypes.Structure):
    """nb_output of nbcc.h."""
    _fields_ = [("code", c_void_p), ("len", c_size_t), ("iface", c_void_p),
                ("errors", c_int), ("warnings", c_int)]


def _proto(lib, name, res, *args):
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = list(args)
    return f


# nbcc.h
_proto(cc, "nb_options_init", None, c_void_p)
_proto(cc, "nb_options_parse", c_int, c_void_p, c_char_p, c_char_p, c_char_p,
       c_size_t)
_proto(cc, "nb_compile", c_int, c_char_p, c_char_p, c_size_t, c_void_p,
       c_char_p, c_void_p, ctypes.POINTER(Output))
_proto(cc, "nb_output_free", None, ctypes.POINTER(Output))
_proto(cc, "nb_iface_print", None, c_void_p, c_void_p, c_char_p)
_proto(cc, "nb_num_read", c_int, c_char_p, c_size_t, c_int, P_double)
_proto(cc, "nb_dd_write", c_int, c_char_p, c_size_t, c_double, c_double)
# nbrt.h
_proto(rt, "nbrt_open", c_void_p, c_char_p, ctypes.POINTER(c_void_p))
_proto(rt, "nbrt_close", None, c_void_p)
_proto(rt, "nbrt_device_name", c_char_p, c_void_p)
_proto(rt, "nbrt_is_host", c_int, c_void_p)
_proto(rt, "nbrt_target", c_char_p, c_void_p)
_proto(rt, "nbrt_error", c_char_p, c_void_p)
_proto(rt, "nbrt_list", c_int, c_void_p)
_proto(rt, "nbrt_describe", c_int, c_void_p, c_void_p)
_proto(rt, "nbrt_load_source", c_void_p, c_void_p, c_char_p, c_char_p,
       c_size_t, c_void_p)
_proto(rt, "nbrt_free", None, c_void_p)
_proto(rt, "nbrt_iface", c_void_p, c_void_p)
_proto(rt, "nbrt_bind", c_int, c_void_p, c_char_p, c_int, c_void_p)
_proto(rt, "nbrt_set_const", c_int, c_void_p, c_char_p, c_double, c_double)
_proto(rt, "nbrt_run", c_int, c_void_p, c_size_t, c_size_t)
_proto(rt, "nbrt_host_memory", c_double)
_proto(rt, "nbrt_run_memory", c_int, c_void_p, c_size_t, c_size_t, c_int,
       P_double)
_proto(rt, "nbrt_format_bytes", None, c_char_p, c_size_t, c_double)
_proto(rt, "nbrt_kernel_time", c_double, c_void_p)
_proto(rt, "nbrt_total_time", c_double, c_void_p)
_proto(rt, "nbrt_launches", ctypes.c_long, c_void_p)
_proto(rt, "nbrt_cache_hit", c_int, c_void_p)
_proto(rt, "nbrt_cache_dir", c_char_p, c_void_p)
# libc: a FILE * that writes into memory, for the functions that print
_proto(libc, "open_memstream", c_void_p, ctypes.POINTER(c_void_p),
       ctypes.POINTER(c_size_t))
_proto(libc, "fclose", c_int, c_void_p)
_proto(libc, "free", None, c_void_p)

# nb_prec and nbrt_type values
NB_FLOAT, NB_DOUBLE, NB_DD = 0, 1, 2
NBRT_FLOAT, NBRT_DOUBLE, NBRT_DD = 0, 1, 2
# nb_num_read's refusals
NB_NUM_SYNTAX, NB_NUM_NONFINITE, NB_NUM_RANGE = -1, -2, -3


def printed(fn, *args):
    """What fn(*args, FILE *) writes, as text; and what it returns."""
    buf, size = c_void_p(), c_size_t()
    f = libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
    if not f:
        raise MemoryError("open_memstream failed")
    try:
        r = fn(*args, f)
    finally:
        libc.fclose(f)
        text = ctypes.string_at(buf, size.value).decode("utf-8", "replace")
        libc.free(buf)
    return text, r


def text(p):
    """A C string returned by the libraries, as str ("" for NULL)."""
    return p.decode("utf-8", "replace") if p else ""


def take_string(p):
    """A malloc'd C string, as str, freed."""
    if not p:
        return ""
    s = ctypes.string_at(p).decode("utf-8", "replace")
    libc.free(p)
    return s
