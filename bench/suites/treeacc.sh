# suites/treeacc.sh: the treecode's accuracy (docs/treecode.md): the
# relative force (gravity, far/gravity_quad.nbl) and velocity (vortex:
# biot_savart.nbl, far/biot_savart_dipole.nbl) error of the tree in float
# against a direct sum in double over a sample of 1000 i-bodies, median
# and 99th percentile, for each theta, on a Plummer sphere, a uniform cube
# and two Plummer spheres 6 apart (galaxies), at each N
# (bench/treeacc.c, built by make bin/treeacc); then the energy error of
# nbody's leap-frog, direct and --tree at each theta, on the same start.
about="treecode accuracy: error against double direct over theta, N, distributions; nbody energy"
params="device ns dists thetas kernels nbody_n nbody_steps"
device=host
ns="10000 100000"
dists="plummer cube galaxies"
thetas="0.3,0.4,0.5,0.6,0.7,0.8"
kernels="gravity vortex"
nbody_n=4096
nbody_steps=200

suite_run() {
	[ -x "$BIN/treeacc" ] || {
		note "no $BIN/treeacc (make bin/treeacc)"
		return 1
	}
	first=1
	for kern in $kernels; do
		for n in $ns; do
			for dist in $dists; do
				"$BIN/treeacc" "$kern" "$n" "$dist" "$thetas" "$device" \
					</dev/null >"$T/rows" 2>"$T/err" || {
					note "$kern $dist N = $n failed: $(tail -n 1 "$T/err")"
					continue
				}
				if [ $first = 1 ]; then head -n 1 "$T/rows"; first=0; fi
				tail -n +2 "$T/rows"
			done
		done
	done
	echo "energy,theta,n,steps,dE_over_E,s_per_step"
	for th in direct $(echo "$thetas" | tr , ' '); do
		tree=
		[ "$th" = direct ] || tree="--tree --theta $th"
		"$BIN/nbody" -n "$nbody_n" --steps "$nbody_steps" \
			--device "$device" $tree </dev/null >"$T/nb" 2>&1 || {
			note "nbody $tree failed: $(tail -n 1 "$T/nb")"
			continue
		}
		de=$(sed -n 's/.*|dE\/E| = *\([^ ]*\).*/\1/p' "$T/nb")
		ts=$(sed -n 's/^time\/step: *\([^ ]*\) s.*/\1/p' "$T/nb")
		echo "energy,$th,$nbody_n,$nbody_steps,$de,$ts"
	done
	note "err: |tree - direct| / |direct| of the force (velocity) vector"
	note "over 1000 sample bodies; the tree in float, direct in double"
	note "energy: nbody's built-in Plummer sphere, float, leap-frog"
}
