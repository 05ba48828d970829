# docs.sh: the commands shown in docs/language.md and docs/tutorial.md
# (their ```console blocks) still print what the pages say, the way the
# suite tests/cases/generated keeps generated/ in sync.  Fix a failure
# with `sh docs/regen.sh` (or NBCC_UPDATE=1, which runs it) and reread
# the prose around what changed.  The blocks run the nbcc of the build
# under test (so under the sanitizers too) and nothing else: no OpenCL
# device and no timings, which keeps the check deterministic and to about
# a second.  The commands of README.md and docs/nbody.md need a device
# and take longer; they are not checked here (tests/sh/nbody.sh and
# nbrun.sh run those programs).
set -u
. "$ROOT/tests/lib.sh"
cd "$ROOT"
if [ "${NBCC_UPDATE:-0}" = 1 ]; then
	sh docs/regen.sh --bin "$BIN"
else
	sh docs/regen.sh --check --bin "$BIN"
fi
if [ $? = 0 ]; then ok; else bad "docs/regen.sh: the pages are stale"; fi
finish docs
