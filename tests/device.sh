# tests/device.sh: sourced by the tests/sh scripts that depend on a
# device, so each reads the device's own limits (nbrun --device-info)
# instead of assuming one driver's, and is skipped (exit 77, see
# tests/run.sh) where the device is missing.  Needs BIN.
#   device_info SPEC KEY   the KEY line's value for the device SPEC picks
#                          (empty when there is no such device)
#   have_device SPEC       true when an OpenCL device matches SPEC
#   need_device SPEC       exits 77 with a message unless have_device SPEC

device_info() {
	"$BIN/nbrun" --device "$1" --device-info 2>/dev/null |
		sed -n "s/^$2 //p"
}

have_device() {
	t=$(device_info "$1" type)
	[ -n "$t" ] && [ "$t" != host ]
}

need_device() {
	have_device "$1" && return 0
	echo "skipped: no OpenCL device matches '$1' ($(basename "$0"))"
	exit 77
}
