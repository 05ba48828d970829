"""device.py: the devices.  devices() lists them (nbrt_list, then the
host); Device is one open (nbrt_open), shared by every kernel loaded on
it and locked while the runtime works on it; open_device() opens each
device spec once per process and environment."""

import ctypes as _ctypes
import os as _os
import threading as _threading
import weakref as _weakref
from typing import Dict, List, NamedTuple, Optional, Tuple

from . import _lib
from ._lib import rt
from .errors import DeviceError

# the public names; the rest, imported modules included, are the package's
__all__ = ["Device", "DeviceInfo", "devices"]


class DeviceInfo(NamedTuple):
    """A device: spec (what device= takes), type (gpu, cpu, other or
    host), name."""
    spec: str
    type: str
    name: str


class Device:
    """An open device (nbrt_open), shared by every kernel loaded on it.
    Kernel() opens them; nbcc.Device(spec) is there for .describe()."""

    name: str
    is_host: bool
    target: str
    cache_dir: Optional[str]

    def __init__(self, spec: Optional[str] = None) -> None:
        if spec is not None and not isinstance(spec, str):
            raise TypeError("device must be a str such as 'cpu', 'gpu', "
                            "'host', '0:1', not %s" % type(spec).__name__)
        if spec and "\0" in spec:
            # C would read the spec up to it: "host\0x" would open the host
            raise ValueError("device %r: a NUL character is not allowed" %
                             spec)
        err = _ctypes.c_void_p()
        h = rt.nbrt_open(spec.encode("utf-8", "surrogateescape") if spec
                         else None, _ctypes.byref(err))
        if not h:
            raise DeviceError(_lib.take_string(err.value) or
                              "cannot open a device")
        self._h = h
        self.name = _lib.text(rt.nbrt_device_name(h))
        self.is_host = bool(rt.nbrt_is_host(h))
        self.target = _lib.text(rt.nbrt_target(h))
        self.cache_dir = _lib.text(rt.nbrt_cache_dir(h)) or None
        # the runtime's calls on one device are made one at a time;
        # reentrant, as a kernel collected while the lock is held (by the
        # garbage collector, in this thread) frees itself under it
        self.lock = _threading.RLock()
        self._fin = _weakref.finalize(self, rt.nbrt_close, h)

    def describe(self) -> Dict[str, str]:
        """The device's limits (nbrun --device-info) as a dict of str."""
        with self.lock:
            t, _ = _lib.printed(rt.nbrt_describe, self._h)
        return dict(line.split(" ", 1) for line in t.splitlines()
                    if " " in line)

    def error(self) -> str:
        return _lib.text(rt.nbrt_error(self._h))

    def __repr__(self) -> str:
        return "<nbcc.Device %s>" % self.name


_devices: Dict[Tuple[Optional[str], ...], Device] = {}
# what nbrt_open reads of the environment (runtime/cache.c, nbrt_host.c,
# nbrt.c): part of a device's key, so that a kernel sees the NBRT_DEVICE
# and NBRT_CACHE_DIR of its creation
_ENV = ("NBRT_DEVICE", "NBRT_CACHE_DIR", "NBRT_CACHE", "XDG_CACHE_HOME",
        "HOME", "NBRT_VERBOSE", "NBRT_CC", "CC", "NBRT_HOST_CFLAGS")
_devices_lock = _threading.Lock()


def open_device(spec: Optional[str]) -> Device:
    """The open device for spec, opened once per process: None is what the
    C programs do (NBRT_DEVICE, else a GPU, else a CPU, else the host),
    read when first asked."""
    key = (spec or "",) + tuple(_os.environ.get(e) for e in _ENV)
    with _devices_lock:
        d = _devices.get(key)
        if d is None:
            d = _devices[key] = Device(spec)
        return d


def devices() -> List[DeviceInfo]:
    """The devices there are: each OpenCL device (platform:device), then the
    host, as DeviceInfo(spec, type, name)."""
    text, n = _lib.printed(rt.nbrt_list)
    if n < 0:
        raise DeviceError(text.strip() or "cannot list the OpenCL devices")
    out = []
    for line in text.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3:
            out.append(DeviceInfo(*parts))
    out.append(DeviceInfo("host", "host", open_device("host").name))
    return out
