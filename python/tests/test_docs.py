"""test_docs.py: the ```python blocks of docs/python.md run, in order, in
one namespace, from the nbcc sources' directory (conftest.py), and their
own asserts hold: the guide's examples are code that works (the timings,
a ```console block, are not run)."""

import os
import re


def test_python_md(source_dir):
    with open(os.path.join(source_dir, "docs", "python.md")) as f:
        blocks = re.findall(r"^```python\n(.*?)^```$", f.read(), re.M | re.S)
    assert len(blocks) >= 3
    ns = {}
    for i, b in enumerate(blocks):
        exec(compile(b, "docs/python.md block %d" % (i + 1), "exec"), ns)
