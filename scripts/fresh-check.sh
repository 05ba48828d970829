#!/bin/sh
# fresh-check.sh: tries the README's quick start as a new user would, on a
# fresh Debian 12 root built with debootstrap, so that a missing package or
# a test that only passes on our machines shows up before a user finds it.
#
#   sh scripts/fresh-check.sh [--keep] [--dir DIR] [--mirror URL]
#
# As root: builds a bookworm root in a scratch folder under DIR (default
# /var/tmp), clones this repository's HEAD into it (committed work only:
# a clone, not the working tree with its build outputs), installs make
# (the one thing the README assumes), and runs `make demo` and `make check`
# there with /proc, /sys and /dev mounted for PoCL.  Prints each command's
# outcome and time and exits non-zero if either fails.  The logs stay in
# build/fresh-check/; the root is removed afterwards unless --keep.
# Needs the network (the Debian mirror); takes 10-30 minutes.
set -eu

usage() {
	echo "usage: sh scripts/fresh-check.sh [--keep] [--dir DIR] [--mirror URL]" >&2
	exit 2
}
KEEP=0
DIR=/var/tmp
MIRROR=http://deb.debian.org/debian
while [ $# -gt 0 ]; do
	case $1 in
	--keep) KEEP=1 ;;
	--dir) [ $# -ge 2 ] || usage; DIR=$2; shift ;;
	--dir=*) DIR=${1#--dir=} ;;
	--mirror) [ $# -ge 2 ] || usage; MIRROR=$2; shift ;;
	--mirror=*) MIRROR=${1#--mirror=} ;;
	-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) usage ;;
	esac
	shift
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOGS=$ROOT/build/fresh-check
say() { echo "fresh-check: $*"; }
die() { echo "fresh-check: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mounts)"
[ -d "$DIR" ] || die "no folder $DIR"
case $DIR in *[[:space:]]*) die "a folder without blanks, please: $DIR" ;; esac
command -v git >/dev/null || die "needs git"
HEAD=$(git -C "$ROOT" rev-parse HEAD) || die "$ROOT is not a git repository"
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ]; then
	say "note: uncommitted changes are not checked; this checks HEAD $HEAD"
fi
if ! command -v debootstrap >/dev/null; then
	say "installing debootstrap"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
		die "could not install debootstrap"
fi

R=$(mktemp -d "$DIR/nbcc-fresh.XXXXXX")
mounted=""
# Unmounts in the reverse order; the root is removed only when nothing is
# mounted under it any more, so that a failed unmount can never take the
# host's /dev with it.
cleanup() {
	for m in $mounted; do
		umount -R "$m" 2>/dev/null || umount -lR "$m" 2>/dev/null ||
			echo "fresh-check: could not unmount $m" >&2
	done
	mounted=""
	if [ "$KEEP" = 1 ]; then
		say "kept the root in $R"
	elif grep -q " $R/" /proc/mounts; then
		echo "fresh-check: something is still mounted under $R; not removing it" >&2
	else
		rm -rf --one-file-system "$R"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

mkdir -p "$LOGS"
rm -f "$LOGS"/*.log
now() { date +%s; }

# $1: name; the rest: a command whose output goes to $LOGS/NAME.log.
# Prints the outcome, the time and, on failure, the log's tail.
step() {
	name=$1
	shift
	t0=$(now)
	if "$@" >"$LOGS/$name.log" 2>&1; then rc=0; else rc=$?; fi
	dt=$(($(now) - t0))
	if [ $rc = 0 ]; then
		say "$name: ok (${dt} s)"
	else
		say "$name: FAILED, exit $rc (${dt} s); last lines of $LOGS/$name.log:"
		tail -n 25 "$LOGS/$name.log" | sed 's/^/    /'
	fi
	return $rc
}

say "checking $HEAD in $R"
step debootstrap debootstrap bookworm "$R" "$MIRROR" ||
	die "could not build the Debian root"

cp /etc/resolv.conf "$R/etc/resolv.conf"
mount -t proc proc "$R/proc"
mounted="$R/proc $mounted"
mount -t sysfs sys "$R/sys"
mounted="$R/sys $mounted"
mount --rbind /dev "$R/dev"
mount --make-rslave "$R/dev"
mounted="$R/dev $mounted"

git clone -q --no-local "$ROOT" "$R/root/nbcc"
git -C "$R/root/nbcc" -c advice.detachedHead=false checkout -q "$HEAD"

# what a new user has: a login shell as root in the clone, nothing else
in_root() {
	chroot "$R" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		sh -c "cd /root/nbcc && $1"
}
step make-install in_root "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq make" ||
	die "could not install make"

fail=0
step make-demo in_root "make demo" || fail=1
step make-check in_root "make check" || fail=1
grep -h -e '^tests:' -e '^fuzz:' "$LOGS/make-check.log" | sed 's/^/    /' || true
if [ $fail = 0 ]; then
	say "PASS: make demo and make check on a fresh Debian 12"
else
	say "FAIL; the logs are in $LOGS"
fi
exit $fail
