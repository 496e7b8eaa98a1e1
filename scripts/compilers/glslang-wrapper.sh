#!/bin/sh
# glslang-wrapper.sh: glslangValidator behind waverig's command-compiler
# calling convention (docs/compilers.md), so that
#   waverig run -compilers ours,cmd:wrapped=scripts/compilers/glslang-wrapper.sh
# runs glslang as any external compiler would run: the rig knows nothing of it
# but this convention, and binds its modules by their own decorations.
#
# Exit 0: module written to --out. Exit 3: glslang cannot compile this shader
# (it rejects the source, emits no WGSL, or would drop an attribute): a skip.
# Exit 2: a command line this wrapper does not understand (a rig bug).
set -u

die() { echo "glslang-wrapper: $*" >&2; exit 2; }
cannot() { echo "$*" >&2; exit 3; }

hlsl= entry= stage= target= out=
set --  "$@" --end--
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
	--define) set -- "$@" "-D$val" ;;
	--extension) ;; # glslang enables extensions from the source itself
	--register-shift)
		case ${val%%=*} in
		t) set -- "$@" --shift-texture-binding "${val#*=}" ;;
		u) set -- "$@" --shift-uav-binding "${val#*=}" ;;
		b) set -- "$@" --shift-cbuffer-binding "${val#*=}" ;;
		s) set -- "$@" --shift-sampler-binding "${val#*=}" ;;
		*) die "unknown register class in --register-shift $val" ;;
		esac ;;
	*) die "unknown option $opt" ;;
	esac
done
shift # --end--; what remains are glslang's define and shift flags

[ -n "$hlsl" ] && [ -n "$entry" ] && [ -n "$stage" ] && [ -n "$target" ] && [ -n "$out" ] ||
	die "--hlsl, --entry, --stage, --target and --out are required"
case $stage in
compute) s=comp ;; pixel) s=frag ;; vertex) s=vert ;;
*) cannot "glslang-wrapper: no stage $stage" ;;
esac
case $target in
vulkan1.1 | vulkan1.2 | vulkan1.3) ;;
wgsl) cannot "glslang emits no WGSL" ;;
*) cannot "glslang-wrapper: unknown target $target" ;;
esac
command -v glslangValidator >/dev/null 2>&1 ||
	cannot "glslangValidator not installed (apt-get install glslang-tools)"

# WAVERIG_GLSLANG: the macro the built-in glslang compile defines too
# (harness/glslang.Macro): HLSL that needs a standard form glslang 12 lacks,
# asuint(double, out uint, out uint), takes its other road under it.
log=$(glslangValidator -V -D -DWAVERIG_GLSLANG=1 --target-env "$target" -S "$s" -e "$entry" --hlsl-iomap "$@" -o "$out" "$hlsl" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	# glslang's HLSL front end lacks parts of HLSL (int64_t, …): what it
	# rejects is a gap of this compiler, not a wrong module.
	rm -f "$out"
	# The first error, as "line N: …" (no temporary path: the rig groups skips by reason).
	first=$(printf '%s\n' "$log" | grep -m1 '^ERROR: ' | sed 's/^ERROR: [^:]*:\([0-9][0-9]*\):/line \1:/')
	cannot "glslangValidator rejects this shader: ${first:-$log}"
fi
case $log in
*"'WaveOpsIncludeHelperLanes' : unrecognized attribute"*)
	rm -f "$out"
	cannot "glslang ignores [WaveOpsIncludeHelperLanes]: its module would not make helper lanes take part in wave operations" ;;
esac
exit 0
