"""_lib.py: the C libraries through ctypes.  Finds libnbcc.so and
libnbrt.so (built into the package by its setup.py, or named by
NBCC_LIBDIR, or installed by `make install`), declares the functions of
nbcc.h and nbrt.h the package calls, and reads text that C writes to a
FILE *.  ctypes releases the GIL around every call, so a kernel runs
while other Python threads go on.  What the libraries say of themselves
(names, sizes, enum values) is _facts.py's."""

import ctypes
import os
from typing import Any, Callable, Optional, Tuple

# the soname's version: the one number the package must know to find them
SOVERSION = "0"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _open(where: str) -> Tuple[ctypes.CDLL, ctypes.CDLL]:
    # libnbcc first and global: libnbrt.so.0 needs libnbcc.so.0, which
    # the loader then finds loaded by its soname whatever the directory
    cc = ctypes.CDLL(os.path.join(where, "libnbcc.so." + SOVERSION),
                     mode=ctypes.RTLD_GLOBAL)
    rt = ctypes.CDLL(os.path.join(where, "libnbrt.so." + SOVERSION))
    return cc, rt


def _load() -> Tuple[ctypes.CDLL, ctypes.CDLL, str]:
    """The two libraries, and the directory they came from."""
    env = os.environ.get("NBCC_LIBDIR")
    if env:
        return _open(env) + (env,)  # asked for: its failure is the answer
    if os.path.exists(os.path.join(_HERE, "libnbrt.so." + SOVERSION)):
        return _open(_HERE) + (_HERE,)
    try:
        # the loader's search: a `make install`
        return _open("") + ("the loader's search path",)
    except OSError as e:
        raise ImportError(
            "nbcc: libnbrt.so.%s not found: install the package with "
            "`pip install ./python` (it builds the libraries), or set "
            "NBCC_LIBDIR to a build directory (%s)" % (SOVERSION, e)) from e


cc, rt, where = _load()
libc = ctypes.CDLL(None)

c_int, c_double, c_size_t = ctypes.c_int, ctypes.c_double, ctypes.c_size_t
c_char_p, c_void_p = ctypes.c_char_p, ctypes.c_void_p
P_int = ctypes.POINTER(c_int)
P_double = ctypes.POINTER(c_double)
P_size_t = ctypes.POINTER(c_size_t)


def _proto(lib: ctypes.CDLL, name: str, res: Any, *args: Any) -> None:
    f = getattr(lib, name)
    f.restype = res
    f.argtypes = list(args)


# nbcc.h
_proto(cc, "nb_version", c_char_p)
_proto(cc, "nb_enum_name", c_char_p, c_char_p, c_int)
_proto(cc, "nb_source_ext", c_char_p)
_proto(cc, "nb_max_source", c_size_t)
_proto(cc, "nb_prec_scalars", c_int, c_int)
_proto(cc, "nb_prec_scalar_bytes", c_size_t, c_int)
_proto(cc, "nb_prec_unit", c_double, c_int)
_proto(cc, "nb_target_of_ext", c_char_p, c_char_p)
_proto(cc, "nb_is_generated", c_int, c_char_p, c_char_p, c_size_t)
_proto(cc, "nb_options_new", c_void_p)
_proto(cc, "nb_options_free", None, c_void_p)
_proto(cc, "nb_options_parse", c_int, c_void_p, c_char_p, c_char_p, c_char_p,
       c_size_t)
_proto(cc, "nb_compile_text", c_void_p, c_char_p, c_char_p, c_size_t,
       c_void_p, c_char_p, c_void_p, P_size_t)
_proto(cc, "nb_iface_print", None, c_void_p, c_void_p, c_char_p)
_proto(cc, "nb_iface_field", c_char_p, c_void_p, c_char_p)
_proto(cc, "nb_iface_var", c_char_p, c_void_p, c_int, P_int, P_int, P_int)
_proto(cc, "nb_red_integer", c_int, c_int)
_proto(cc, "nb_num_read", c_int, c_char_p, c_size_t, c_int, P_double)
_proto(cc, "nb_dd_write", c_int, c_char_p, c_size_t, c_double, c_double)
# nbrt.h
_proto(rt, "nbrt_type_name", c_char_p, c_int)
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
_proto(rt, "nbrt_run_ranges_csr", c_int, c_void_p, c_size_t, c_size_t,
       c_size_t, P_size_t, P_size_t, P_size_t)
_proto(rt, "nbrt_run_cutoff_args", c_int, c_void_p, c_size_t, c_size_t,
       c_double, c_int, ctypes.POINTER(c_char_p), ctypes.POINTER(c_char_p),
       P_double, c_int)
_proto(rt, "nbrt_set_newton", c_int, c_void_p, c_int)
_proto(rt, "nbrt_run_self", c_int, c_void_p, c_size_t)
_proto(rt, "nbrt_newton_used", c_int, c_void_p)
_proto(rt, "nbrt_run_tree_args", c_int, c_void_p, c_void_p, c_size_t,
       c_size_t, c_double, c_size_t, c_size_t, ctypes.POINTER(c_char_p),
       ctypes.POINTER(c_char_p), c_char_p, ctypes.POINTER(c_char_p))
_proto(rt, "nbrt_tree_default", c_size_t, c_char_p)
_proto(rt, "nbrt_tree_group", c_size_t, c_size_t)
_proto(rt, "nbrt_pairs", c_double, c_void_p)
_proto(rt, "nbrt_sum", c_int, c_int, c_void_p, c_void_p, c_size_t, P_double)
_proto(rt, "nbrt_host_memory", c_double)
_proto(rt, "nbrt_run_memory", c_int, c_void_p, c_size_t, c_size_t, c_int,
       P_double)
_proto(rt, "nbrt_format_bytes", None, c_char_p, c_size_t, c_double)
_proto(rt, "nbrt_kernel_time", c_double, c_void_p)
_proto(rt, "nbrt_total_time", c_double, c_void_p)
_proto(rt, "nbrt_launches", ctypes.c_long, c_void_p)
_proto(rt, "nbrt_cache_hit", c_int, c_void_p)
_proto(rt, "nbrt_cache_dir", c_char_p, c_void_p)
# libc: a FILE * that writes into memory, for the functions that print,
# and free() for what the libraries return malloc'd
_proto(libc, "open_memstream", c_void_p, ctypes.POINTER(c_void_p),
       P_size_t)
_proto(libc, "fclose", c_int, c_void_p)
_proto(libc, "free", None, c_void_p)


def printed(fn: Callable[..., Any], *args: Any) -> Tuple[str, Any]:
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


def text(p: Optional[bytes]) -> str:
    """A C string returned by the libraries, as str ("" for NULL)."""
    return p.decode("utf-8", "replace") if p else ""


def take_string(p: Optional[int], n: Optional[int] = None) -> str:
    """A malloc'd C string (of n bytes, else up to its NUL), as str,
    freed."""
    if not p:
        return ""
    s = ctypes.string_at(p, -1 if n is None else n).decode("utf-8",
                                                           "replace")
    libc.free(p)
    return s
