#!/bin/sh
# slurm-local.sh [stop]: a one-node Slurm on this machine, to run the
# programs with `srun --mpi=pmix` as on a cluster (docs/mpi.md, "On a
# cluster: Slurm"; tests/sh/slurm.sh).  As root on Debian 12: installs
# slurm-wlm and munge where missing, writes /etc/slurm/slurm.conf (one
# node, this host, its cores; one partition) unless a file not of this
# script is there, and starts munged, slurmctld and slurmd unless they
# answer already, without systemd (containers have none).  Running it
# again changes nothing; `stop` ends the three daemons it started.
set -eu
CONF=/etc/slurm/slurm.conf
MARK="# written by nbcc's scripts/slurm-local.sh"
RUN=/run/nbcc-slurm        # the daemons' pid files
LOG=/var/log/slurm

die() { echo "slurm-local: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root: it installs packages and starts daemons"

stop() { # the daemons whose pid files this script wrote, newest first
	for d in slurmd slurmctld munged; do
		f=$RUN/$d.pid
		[ -s "$f" ] || continue
		p=$(cat "$f")
		kill "$p" 2>/dev/null && echo "slurm-local: stopped $d ($p)"
		rm -f "$f"
	done
}
if [ "${1:-}" = stop ]; then
	stop
	exit 0
fi
[ $# = 0 ] || die "usage: slurm-local.sh [stop]"

if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends slurm-wlm munge >/dev/null ||
		die "apt-get install slurm-wlm munge failed"
fi
# Slurm's PMIx plugin is what Open MPI's ranks talk to under srun
ls /usr/lib/*/slurm-wlm/mpi_pmix*.so >/dev/null 2>&1 ||
	die "this Slurm has no PMIx plugin (mpi_pmix.so)"

host=$(hostname -s)
cpus=$(nproc --all)
mkdir -p /etc/slurm "$RUN" "$LOG" /var/spool/slurmctld /var/spool/slurmd
if [ -f "$CONF" ] && ! grep -q "^$MARK" "$CONF"; then
	echo "slurm-local: $CONF is not this script's: kept as it is"
else
	# root runs both daemons (no slurm user's rights to set up), tasks are
	# tracked by their process tree (no cgroups in a container), and a
	# core is the unit given out, so -n 2 puts two tasks on two cores
	cat >"$CONF.new" <<EOF
$MARK
ClusterName=nbcc
SlurmctldHost=$host
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd.log
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	if cmp -s "$CONF.new" "$CONF"; then
		rm -f "$CONF.new"
	else
		mv "$CONF.new" "$CONF"
		echo "slurm-local: wrote $CONF ($host, $cpus CPUs)"
	fi
fi

# munge: its key comes with the package; the daemon runs as munge
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
	[ -s /etc/munge/munge.key ] || mungekey --create >/dev/null ||
		die "no munge key and mungekey failed"
	mkdir -p /run/munge
	chown munge:munge /run/munge /etc/munge/munge.key
	chmod 0400 /etc/munge/munge.key
	runuser -u munge -- munged || die "munged did not start"
	pgrep -u munge -x munged | head -n 1 >"$RUN/munged.pid"
	echo "slurm-local: started munged"
fi

if ! scontrol ping 2>/dev/null | grep -q UP; then
	slurmctld || die "slurmctld did not start (see $LOG/slurmctld.log)"
	echo "slurm-local: started slurmctld"
fi
if ! pgrep -x slurmd >/dev/null 2>&1; then
	slurmd || die "slurmd did not start (see $LOG/slurmd.log)"
	echo "slurm-local: started slurmd"
fi

# the node comes up within seconds; a node left down by an earlier run
# of the daemons is resumed
i=0
until sinfo -h -N -o %t 2>/dev/null | grep -q -E '^(idle|mix|alloc)'; do
	i=$((i + 1))
	[ $i -lt 30 ] || die "node $host is not up after 30 s: $(sinfo -N 2>&1 | tail -n 1)"
	[ $i != 5 ] || scontrol update nodename="$host" state=resume 2>/dev/null || true
	sleep 1
done
echo "slurm-local: ready: $(sinfo -h -o '%P %D node(s) %c CPUs %t')"
