"""setup.py: the build half of the nbcc package.  Builds libnbcc.so and
libnbrt.so from the C sources with the project's own Makefile (`make
shared`, into this build's temporary directory: make, a C compiler, flex,
bison and the OpenCL headers and loader come from the system) and puts
them into the package beside the Python code, which loads them with
ctypes.  The C sources are the checkout's, one directory up; an sdist
carries them in csrc/ (sdist_with_c), so that `pip install nbcc-*.tar.gz`
builds anywhere.  Everything else is in pyproject.toml."""

import os
import re
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
# what `make shared` reads: the sources of the two libraries and the
# generated parts' inputs (tests/test_sdist.py checks the list suffices)
C_SOURCES = ("Makefile", "compiler", "runtime", "il", "scripts/embed.sh")
# an sdist's own copy, else the checkout around this directory
CSRC = os.path.join(HERE, "csrc")
ROOT = CSRC if os.path.isfile(os.path.join(CSRC, "Makefile")) else \
    os.path.dirname(HERE)
DEBIAN = ("apt-get install make gcc flex bison ocl-icd-opencl-dev "
          "opencl-c-headers")


def version():
    with open(os.path.join(ROOT, "compiler", "nbcc.h")) as f:
        return re.search(r'#define NBCC_VERSION "([^"]*)"', f.read()).group(1)


class build_with_libs(build_py):
    """build_py, then the shared libraries into the package."""

    def run(self):
        super().run()
        v = version()
        tmp = os.path.abspath(self.get_finalized_command("build").build_temp)
        # NBCC_BUILD_DIR: the project's own build folder (make pycheck),
        # whose objects are already compiled, so make only links the two
        # libraries; anyone else builds from scratch in pip's folder.
        out = os.environ.get("NBCC_BUILD_DIR") or os.path.join(tmp, "nbcc-c")
        cc = os.environ.get("CC", "cc").split()[0]
        missing = [t for t in ("make", cc, "flex", "bison")
                   if not shutil.which(t)]
        if missing:
            sys.exit("nbcc: building the libraries needs %s (Debian: %s)"
                     % (", ".join(missing), DEBIAN))
        # a make of its own, whatever make may have started pip
        env = {k: x for k, x in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        cmd = ["make", "-C", ROOT, "-j%d" % (os.cpu_count() or 1),
               "B=" + out, "shared"]
        print(" ".join(cmd), flush=True)
        if subprocess.run(cmd, env=env).returncode:
            sys.exit("nbcc: make shared failed (above); the build needs "
                     "the OpenCL headers and loader too (Debian: %s)"
                     % DEBIAN)
        pkg = os.path.join(self.build_lib, "nbcc")
        for lib in ("libnbcc", "libnbrt"):
            # under the soname, the one name the package loads
            shutil.copyfile(os.path.join(out, "%s.so.%s" % (lib, v)),
                            os.path.join(pkg, lib + ".so.0"))


class sdist_with_c(sdist):
    """sdist, and the C sources into its csrc/."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        for p in C_SOURCES:
            src, dst = os.path.join(ROOT, p), os.path.join(base_dir, "csrc", p)
            if os.path.isdir(src):
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns(
                    "*.o", "*.a", "*.so*", "__pycache__"))
            else:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)


class BinaryDistribution(Distribution):
    """The wheel carries machine code: not a pure-Python one."""

    def has_ext_modules(self):
        return True


setup(version=version(),
      cmdclass={"build_py": build_with_libs, "sdist": sdist_with_c},
      distclass=BinaryDistribution)
