package diag

// Driver and option errors (E08xx).
const (
	ErrReadFile      Code = "E0801"
	ErrNoEntryPoint  Code = "E0802"
	ErrBadOption     Code = "E0803"
	ErrUnknownEntry  Code = "E0804"
	ErrTargetMissing Code = "E0805"
	ErrInternal      Code = "E0899"
)

var codesDriver = []CodeInfo{
	CodeInfo{ErrReadFile, "the source file or an included file cannot be read, or is not a regular file of at most 16 MiB", `#include "/dev/zero"`, "check the path and the -I directories; a source must be a regular file (not a device, FIFO or directory) of at most 16 MiB"},
	CodeInfo{ErrNoEntryPoint, "no entry point found", "float f(float x) { return x; }", `add [shader("compute")] and [numthreads(…)], or pass -entry and -stage`},
	CodeInfo{ErrBadOption, "an option value is invalid", "waverig compile -vulkan 1.7 a.hlsl", ""},
	CodeInfo{ErrUnknownEntry, "the entry point named by -entry does not exist", "waverig compile -entry Missing a.hlsl", ""},
	CodeInfo{ErrTargetMissing, "a requested target is not available", "waverig compile -target dxil a.hlsl", "use spirv, wgsl or msl"},
	CodeInfo{ErrInternal, "internal compiler error (a bug in waverig; please report it with the source)", "", ""},
}
