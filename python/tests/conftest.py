"""conftest.py: what the package's tests share.  They run from the
repository root, so a kernel's path is "dsl-examples/NAME.nbl" as nbrun's
tests name it: the generated code (whose header records the path) is then
the same, and so is its entry in the kernel cache that `make check`
shares between them ($NBRT_CACHE_DIR).  DEVICES are the host and, where
there is one, the OpenCL CPU device (PoCL)."""

import os

import pytest

import nbcc

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
os.chdir(ROOT)


def _have_cpu():
    try:
        return any(d.type == "cpu" for d in nbcc.devices())
    except nbcc.DeviceError:
        return False


HAVE_CPU = _have_cpu()
DEVICES = ["host", pytest.param("cpu", marks=pytest.mark.skipif(
    not HAVE_CPU, reason="no OpenCL CPU device (Debian: pocl-opencl-icd)"))]


def example(name):
    return os.path.join("dsl-examples", name + ".nbl")
