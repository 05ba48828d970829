"""errors.py: what the package raises beyond Python's own ValueError,
TypeError and MemoryError: Error (the runtime failed), DeviceError (no
device as asked) and CompileError (the source has errors, each one a
Diagnostic)."""

import re as _re
from typing import List, NamedTuple

# the public names; the rest, imported modules included, are the package's
__all__ = ["Error", "DeviceError", "Diagnostic", "CompileError"]


class Error(Exception):
    """A failure of the runtime: the device, its compiler, a run."""


class DeviceError(Error):
    """No device could be opened as asked."""


class Diagnostic(NamedTuple):
    """One compiler message: file:line:col: kind: message."""
    file: str
    line: int
    col: int
    kind: str
    message: str


# the compiler's diagnostics (docs/language.md, "Diagnostics")
_DIAG = _re.compile(r"^(.*?):(\d+):(\d+): (error|warning): (.*)$")


class CompileError(Error, ValueError):
    """The source has errors.  str() is the compiler's whole report (with
    the source lines and carets); .diagnostics has one Diagnostic each."""

    diagnostics: List[Diagnostic]

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.diagnostics = []
        for line in message.splitlines():
            m = _DIAG.match(line)
            if m:
                self.diagnostics.append(Diagnostic(
                    m.group(1), int(m.group(2)), int(m.group(3)),
                    m.group(4), m.group(5)))
