package compiler

import (
	"waverig/compiler/diag"
	"waverig/compiler/syntax"
)

// MaxSourceBytes is the largest HLSL source file, main file or #include, that
// the compiler reads (16 MiB): far above any real shader.
const MaxSourceBytes = syntax.MaxSourceBytes

// ReadSource reads an HLSL source file the way the compiler does: a regular
// file of at most MaxSourceBytes. A device (/dev/zero), a FIFO, a directory or
// a larger file is refused at once instead of read forever or waited on.
// Every reader of HLSL source outside the compiler (waverig exec, the harness)
// uses it. The error is a *diag.Errors with one E0801 message at the file, so
// err.Error() reads "path: error E0801: cannot read the file: …", and it wraps
// the cause (errors.Is(err, fs.ErrNotExist) works). It can also be
// Options.ReadFile: the compiler then reports the same message once.
func ReadSource(path string) ([]byte, error) {
	data, err := syntax.ReadSource(path)
	if err != nil {
		return nil, &diag.Errors{Msgs: []diag.Msg{syntax.ReadError(path, err)}, Err: err}
	}
	return data, nil
}
