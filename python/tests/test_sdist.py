"""test_sdist.py: the source distribution carries what building needs.
`setup.py sdist` of the checkout's python/ gives a tarball holding the
package's modules and, in csrc/, every file of the C sources `make
shared` reads (setup.py's C_SOURCES, compared file by file with the
checkout); make, dry-run in the unpacked csrc/, finds every input of the
two libraries.  (A full `pip install` of the tarball compiles the
libraries: docs/python.md, "Installing", says how it was checked.)"""

import os
import shutil
import subprocess
import sys
import tarfile

import pytest


@pytest.mark.slow
def test_sdist_carries_c_sources(source_dir, tmp_path):
    py = os.path.join(source_dir, "python")
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    r = subprocess.run([sys.executable, "setup.py", "-q", "egg_info",
                        "--egg-base", str(tmp_path), "sdist", "--dist-dir",
                        str(tmp_path)], cwd=py, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    tars = [f for f in os.listdir(tmp_path) if f.endswith(".tar.gz")]
    assert len(tars) == 1, tars
    with tarfile.open(os.path.join(tmp_path, tars[0])) as t:
        names = t.getnames()
        t.extractall(tmp_path / "x")
    top = names[0].split("/")[0]
    have = {n[len(top) + 1:] for n in names}
    mods = [f for f in os.listdir(os.path.join(py, "nbcc"))
            if f.endswith(".py") or f == "py.typed"]
    for f in ["nbcc/" + m for m in mods] + ["setup.py", "pyproject.toml",
                                            "README.md"]:
        assert f in have, f
    # every C source the checkout has under setup.py's list
    ns = {}
    with open(os.path.join(py, "setup.py")) as f:
        src = f.read()
    exec(src[src.index("C_SOURCES ="):src.index("\n", src.index(
        "C_SOURCES ="))], ns)
    want = []
    for p in ns["C_SOURCES"]:
        full = os.path.join(source_dir, p)
        if os.path.isfile(full):
            want.append(p)
            continue
        for d, _, files in os.walk(full):
            want += [os.path.relpath(os.path.join(d, x), source_dir)
                     for x in files if not x.endswith((".o", ".a", ".pyc"))
                     and ".so" not in x]
    assert len(want) > 60, want
    missing = [w for w in want if "csrc/" + w not in have]
    assert not missing, missing
    if not shutil.which("make"):
        pytest.skip("no make")
    csrc = tmp_path / "x" / top / "csrc"
    r = subprocess.run(["make", "-n", "-C", str(csrc), "B=" +
                        str(tmp_path / "b"), "shared"], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "libnbrt.so" in r.stdout
