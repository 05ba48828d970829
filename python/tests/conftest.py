"""conftest.py: what the package's tests share, as fixtures.  The tests
test the nbcc that Python imports -- the installed package (`make
pycheck` pip-installs it into a venv), never the checkout's python/nbcc
through a path of their own -- and run from any directory.

Their data are the nbcc sources' dsl-examples/ and docs/python.md, found
in $NBCC_SOURCE_DIR (make pycheck sets it), else in the checkout that
holds these tests; without them a test that needs them is skipped, and
the rest run.  The session runs in that directory, so that a kernel's
path is "dsl-examples/NAME.nbl" as nbrun's tests name it: the generated
code (whose header records the path) is then the same, and so is its
entry in the kernel cache that `make check` shares between them
($NBRT_CACHE_DIR).  `device` runs a test on the host and, where there is
one, on the OpenCL CPU device (PoCL)."""

import os
from typing import Callable, Iterator, List, Optional

import pytest

import nbcc


def _source_dir() -> Optional[str]:
    env = os.environ.get("NBCC_SOURCE_DIR")
    if env:
        return os.path.abspath(env)
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    if os.path.isfile(os.path.join(checkout, "dsl-examples", "gravity.nbl")):
        return checkout
    return None


SOURCE_DIR = _source_dir()


def _have_cpu() -> bool:
    try:
        return any(d.type == "cpu" for d in nbcc.devices())
    except nbcc.DeviceError:
        return False


HAVE_CPU = _have_cpu()


def pytest_report_header() -> List[str]:
    return ["nbcc %s: %s, libraries from %s" % (
                nbcc.__version__, os.path.dirname(nbcc.__file__),
                nbcc._lib.where),
            "nbcc sources (dsl-examples/, docs/): %s" % (
                SOURCE_DIR or "none (NBCC_SOURCE_DIR unset): the tests of "
                "the examples and docs are skipped")]


@pytest.fixture(scope="session", autouse=True)
def _in_source_dir() -> Iterator[None]:
    """The session runs in the sources' directory, where there are some."""
    old = os.getcwd()
    if SOURCE_DIR:
        os.chdir(SOURCE_DIR)
    yield
    os.chdir(old)


@pytest.fixture(scope="session")
def source_dir() -> str:
    """The nbcc sources' directory (the current one), else a skip."""
    if not SOURCE_DIR:
        pytest.skip("no nbcc sources: set NBCC_SOURCE_DIR to the directory "
                    "that holds dsl-examples/ and docs/")
    if not os.path.isdir(os.path.join(SOURCE_DIR, "dsl-examples")):
        pytest.fail("NBCC_SOURCE_DIR=%s has no dsl-examples/" % SOURCE_DIR)
    return SOURCE_DIR


@pytest.fixture(scope="session")
def example(source_dir: str) -> Callable[[str], str]:
    """example(NAME): the path of dsl-examples/NAME.nbl, as nbrun's tests
    name it."""
    return lambda name: os.path.join("dsl-examples", name + ".nbl")


@pytest.fixture(scope="session")
def nbcc_bin(source_dir: str) -> Optional[str]:
    """The sources' bin/nbcc, if it is built."""
    p = os.path.join(source_dir, "bin", "nbcc")
    return p if os.access(p, os.X_OK) else None


@pytest.fixture(params=["host", pytest.param("cpu", marks=pytest.mark.skipif(
    not HAVE_CPU, reason="no OpenCL CPU device (Debian: pocl-opencl-icd)"))])
def device(request: pytest.FixtureRequest) -> str:
    """Each device a test runs on: the host, the OpenCL CPU device."""
    return request.param
