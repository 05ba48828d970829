# docs.sh: the commands shown in docs/language.md and docs/tutorial.md
# (their ```console blocks) still print what the pages say, the way
# generated.sh keeps generated/ in sync.  Fix a failure with
# `sh docs/regen.sh` and reread the prose around what changed.  The
# blocks run the nbcc of the build under test (so under the sanitizers
# too) and nothing else: no OpenCL device and no timings, which keeps the
# check deterministic and to about a second.  The commands of README.md
# and docs/nbody.md need a device and take longer; they are not checked
# here (tests/sh/nbody.sh and nbrun.sh run those programs).
set -eu
cd "$ROOT"
sh docs/regen.sh --check --bin "$BIN"
