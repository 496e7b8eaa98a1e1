#!/bin/sh
# waverig-wrapper.sh: waverig's own compiler behind the command-compiler
# calling convention (docs/compilers.md), for both targets the rig asks for:
# SPIR-V (--target vulkan1.1, Vulkan) and WGSL (--target wgsl, WebGPU). So
#   waverig run -apis vulkan,webgpu -compilers ours,cmd:wrapped=scripts/compilers/waverig-wrapper.sh
# runs every kernel twice per API: once through the built-in "ours", once
# through this program, which the rig knows only by the convention. Each
# wrapped case must end as its "ours" twin; the tests hold the rig to that.
# The WGSL is waverig's naga dialect (WGSL as wgpu-native 29 accepts it: no
# subgroupElect, which naga lacks), or with WAVERIG_WGSL_DIALECT=standard the
# standard one, as Tint writes it (`enable subgroups;`, which the rig drops
# for naga; WaveIsFirstLane's subgroupElect then fails in naga).
#
# The waverig binary: $WAVERIG, else bin/waverig next to this script's
# repository, else waverig on PATH.
#
# Exit 0: module written to --out. Exit 3: waverig cannot compile this shader
# for the target (its WGSL back end's coded limits, E06xx). Exit 1: a compile
# error. Exit 2: a command line this wrapper does not understand (a rig bug).
set -u

die() { echo "waverig-wrapper: $*" >&2; exit 2; }

hlsl= entry= stage= target= out=
set -- "$@" --end--
while [ "$1" != --end-- ]; do
	opt=$1; shift
	[ "$1" != --end-- ] || die "$opt needs a value"
	val=$1; shift
	case $opt in
	--hlsl) hlsl=$val ;;
	--entry) entry=$val ;;
	--stage) stage=$val ;;
	--target) target=$val ;;
	--out) out=$val ;;
	--define) set -- "$@" -D "$val" ;;
	--extension) set -- "$@" "-fspv-extension=$val" ;;
	--register-shift)
		case ${val%%=*} in
		t | u | b | s) set -- "$@" "-fvk-${val%%=*}-shift" "${val#*=}" 0 ;;
		*) die "unknown register class in --register-shift $val" ;;
		esac ;;
	*) die "unknown option $opt" ;;
	esac
done
shift # --end--; what remains are waverig compile's flags

[ -n "$hlsl" ] && [ -n "$entry" ] && [ -n "$stage" ] && [ -n "$target" ] && [ -n "$out" ] ||
	die "--hlsl, --entry, --stage, --target and --out are required"
case $stage in
compute | pixel | vertex) ;;
*) echo "waverig-wrapper: no stage $stage" >&2; exit 3 ;;
esac
case $target in
vulkan1.1 | vulkan1.2 | vulkan1.3) set -- "$@" -target spirv -vulkan "${target#vulkan}"; ext=spv ;;
wgsl) set -- "$@" -target wgsl -wgsl-dialect "${WAVERIG_WGSL_DIALECT:-naga}"; ext=wgsl ;;
*) echo "waverig-wrapper: unknown target $target" >&2; exit 3 ;;
esac

waverig=${WAVERIG:-$(dirname "$0")/../../bin/waverig}
[ -x "$waverig" ] || waverig=$(command -v waverig) || die "no waverig binary (set WAVERIG or run scripts/build.sh)"

dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
log=$("$waverig" compile -entry "$entry" -stage "$stage" -o "$dir" "$@" -- "$hlsl" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	# waverig compile prints each diagnostic as "file:line:col: error E0601: …".
	case $log in
	*" error E06"*) printf '%s\n' "$log" | grep -m1 ' error E06' | sed 's/^[^ ]*: //' >&2; exit 3 ;;
	esac
	printf '%s\n' "$log" >&2
	exit 1
fi
cp "$dir/$entry.$ext" "$out" || die "waverig compile wrote no $entry.$ext"
