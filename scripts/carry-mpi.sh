#!/bin/sh
# carry-mpi.sh [DIR]: Open MPI for a machine that has none (the device
# machines of docs/mpi.md), from Debian's own packages: apt-get download
# fetches openmpi-bin and the packages of every library that bin/nbody,
# bin/nbrun, bin/oneloop, mpirun and the Open MPI plugins kept need, and
# dpkg-deb unpacks them into DIR (default .carry/mpi, which the run tool
# carries beside bin/).  DIR/bin/mpirun runs Open MPI from there
# (OPAL_PREFIX and friends), and DIR/env.sh sets the library path for the
# programs.  Only glibc's libraries, libgcc_s, the OpenCL ICD loader and
# libgomp are taken to be on the machine already.  Plugins for
# interconnects that one host does not need (UCX, libfabric, PSM,
# InfiniBand verbs) are left out with their libraries; ranks on one host
# talk through shared memory (btl vader).  Needs the build's MPI programs
# (make, with libopenmpi-dev installed) and apt-get with network access.
set -eu
D=${1:-.carry/mpi}
ARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
MPILIB=/usr/lib/$ARCH/openmpi/lib
PLUGINS=$MPILIB/openmpi3
ldd bin/nbody | grep -q libmpi ||
	{ echo "carry-mpi: bin/nbody is not built with MPI (make MPI=1)" >&2; exit 1; }
command -v orterun >/dev/null ||
	{ echo "carry-mpi: no Open MPI here (Debian: openmpi-bin libopenmpi-dev)" >&2; exit 1; }

# the machine's own: glibc, libgcc_s, the OpenCL loader, libgomp
base='/(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64|libgcc_s|libOpenCL|libgomp)\.so'
# interconnects one host does without: their plugins and libraries stay
skip='ucx|ofi|psm|openib|verbs|usnic|portals|reachable_netlink'

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# the plugins kept, and every library they, mpirun and the programs load
ls "$PLUGINS"/*.so | grep -v -E "mca_[a-z]*_($skip)|_($skip)\\.so" >"$W/plugins"
{
	for f in bin/nbody bin/nbrun bin/oneloop "$(command -v orterun)" \
		"$(command -v orted)" $(cat "$W/plugins") \
		/usr/lib/$ARCH/pmix2/lib/pmix/*.so; do
		ldd "$f" | awk '/=> \// { print $3 }'
	done
} | grep -v -E "$base" | sort -u >"$W/libs"
# their packages (the /usr/lib spelling where /lib is a link to it)
pkgs="openmpi-bin openmpi-common libopenmpi3 libpmix2"
while read -r l; do
	p=$(dpkg -S "$l" 2>/dev/null || dpkg -S "/usr$l" 2>/dev/null ||
		dpkg -S "$(readlink -f "$l")" 2>/dev/null) ||
		{ echo "carry-mpi: no package owns $l" >&2; exit 1; }
	pkgs="$pkgs ${p%%:*}"
done <"$W/libs"
pkgs=$(echo $pkgs | tr ' ' '\n' | sed 's/,.*//' | sort -u)
echo "carry-mpi: packages:" $pkgs
(cd "$W" && apt-get download $pkgs >/dev/null)

rm -rf "$D"
mkdir -p "$D/root" "$D/bin"
for deb in "$W"/*.deb; do
	dpkg-deb -x "$deb" "$D/root"
done
R=$D/root
# what running needs: no documentation, headers, static libraries, Java,
# Fortran, OpenSHMEM, nor the plugins left out
rm -rf "$R/usr/share/doc" "$R/usr/share/man" "$R/usr/share/locale" \
	"$R/usr/share/lintian" "$R/usr/include" "$R/usr/lib/$ARCH/openmpi/include"
find "$R" \( -name '*.a' -o -name '*.la' -o -name '*.jar' -o -name '*.pc' \
	-o -name '*fort*' -o -name '*oshmem*' -o -name '*java*' \) \
	-exec rm -rf {} + 2>/dev/null || true
for f in "$R$PLUGINS"/*.so; do
	grep -q -x "$PLUGINS/$(basename "$f")" "$W/plugins" || rm -f "$f"
done
# only the libraries loaded, besides Open MPI's own tree
find "$R/usr/lib/$ARCH" "$R/lib/$ARCH" -maxdepth 1 \( -type f -o -type l \) \
	-name 'lib*.so*' 2>/dev/null | while read -r f; do
	n=$(basename "$f")
	grep -q "/${n%%.so*}\\.so" "$W/libs" || rm -f "$f"
done
# no symbolic links (a copy that travels may drop them): each library as
# a plain file under its SONAME, the name the loader asks for
find "$R" -type f -name '*.so*' | while read -r f; do
	so=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	[ -n "$so" ] && [ "$so" != "$(basename "$f")" ] || continue
	rm -f "$(dirname "$f")/$so"
	mv "$f" "$(dirname "$f")/$so"
done
find "$R" -type l -delete
find "$R" -depth -type d -empty -delete

cat >"$D/env.sh" <<'EOF'
# . DIR/env.sh: the carried Open MPI first in PATH and the library path
# (scripts/carry-mpi.sh); root may run mpirun, as on the device machines.
MPI_CARRY=$(cd "$(dirname "${MPI_ENV:-.carry/mpi/env.sh}")" && pwd)
R=$MPI_CARRY/root
A=ARCH
export PATH="$MPI_CARRY/bin:$PATH"
export LD_LIBRARY_PATH="$R/usr/lib/$A:$R/lib/$A:$R/usr/lib/$A/openmpi/lib:$R/usr/lib/$A/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Open MPI's directories moved with it (opal's installdirs env component)
export OPAL_PREFIX="$R/usr" OPAL_EXEC_PREFIX="$R/usr" OPAL_BINDIR="$R/usr/bin"
export OPAL_LIBDIR="$R/usr/lib/$A/openmpi/lib"
export OPAL_PKGLIBDIR="$R/usr/lib/$A/openmpi/lib/openmpi3"
export OPAL_DATAROOTDIR="$R/usr/share" OPAL_DATADIR="$R/usr/share"
export OPAL_PKGDATADIR="$R/usr/share/openmpi" OPAL_SYSCONFDIR="$R/etc/openmpi"
export OPAL_LIBEXECDIR="$R/usr/libexec"
# and PMIx's
export PMIX_INSTALL_PREFIX="$R/usr/lib/$A/pmix2"
export PMIX_MCA_mca_base_component_path="$R/usr/lib/$A/pmix2/lib/pmix"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# mpirun's hwloc must not list OpenCL devices: through CUDA's ICD loader
# that cuts OCL_ICD_FILENAMES at its first ':' in mpirun's environment,
# and the ranks inherit the cut (docs/mpi.md, "Ranks that find their GPU")
export HWLOC_COMPONENTS=-opencl
unset R A
EOF
sed -i "s|^A=ARCH|A=$ARCH|" "$D/env.sh"
cat >"$D/bin/mpirun" <<'EOF'
#!/bin/sh
# mpirun of the Open MPI unpacked beside it (scripts/carry-mpi.sh)
MPI_ENV=$(dirname "$0")/../env.sh
. "$MPI_ENV"
exec "$MPI_CARRY/root/usr/bin/orterun" "$@"
EOF
chmod +x "$D/bin/mpirun"
echo "carry-mpi: $D: $(du -sh "$D" | cut -f1) ($(find "$D" -type f | wc -l) files); with bin/: $(du -shc "$D" bin | tail -1 | cut -f1)"
