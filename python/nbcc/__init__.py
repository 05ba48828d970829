"""nbcc: pairwise kernel sums from numpy.

    import numpy as np, nbcc
    k = nbcc.Kernel("gravity.nbl", precision="double")
    out = k(xi=x, yi=y, zi=z, xj=x, yj=y, zj=z, mj=m, eps2=1e-4)
    out["ax"]                      # a numpy array per RMEM

A kernel is an nbcc source (a path, or the text itself), compiled for the
device by the nbcc runtime (libnbrt.so) and called with every LMEM, BMEM
and CONST by its declared name.  docs/python.md is the guide.

The modules, by concern: _lib (the C libraries through ctypes), _facts
(what the libraries say of themselves), errors, doubledouble (DD, dd),
device (devices, Device), _options (keyword options as nbcc flags) and
kernel (Kernel).  The public API is what this module exports."""

from . import _lib
from .device import Device, DeviceInfo, devices
from .doubledouble import DD, dd
from .errors import CompileError, DeviceError, Diagnostic, Error
from .kernel import Kernel, Var

__all__ = ["Kernel", "DD", "dd", "devices", "Device", "DeviceInfo",
           "Diagnostic", "Error", "DeviceError", "CompileError"]

# the version of the library loaded, which is the package's
__version__: str = _lib.text(_lib.cc.nb_version())
