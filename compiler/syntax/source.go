package syntax

import (
	"errors"
	"io/fs"
	"strings"

	"waverig/compiler/diag"
	"waverig/internal/fsutil"
)

// MaxSourceBytes is the largest HLSL file (main file or #include) the compiler
// reads: far above any real shader, and it keeps a mistaken path from eating
// the machine's memory.
const MaxSourceBytes = 16 << 20

// ReadSource is how the compiler reads a source file by default: a regular file
// of at most MaxSourceBytes. A device (/dev/zero) or a FIFO is refused instead
// of read forever or waited on.
func ReadSource(path string) ([]byte, error) { return fsutil.ReadRegular(path, MaxSourceBytes) }

// cannotRead starts the E0801 message of a file that cannot be read.
const cannotRead = "cannot read the file: "

// ReadError is the E0801 message of a source that cannot be read, positioned
// at the file: "path: error E0801: cannot read the file: REASON".
func ReadError(path string, err error) diag.Msg {
	return diag.Msg{Severity: diag.Error, Code: diag.ErrReadFile, Pos: diag.FileOnly(path), Text: cannotRead + ReadErrorText(err)}
}

// ReadErrorText is the reason a source could not be read, for a message that
// already names the file: an *fs.PathError ("open a.hlsl: no such file or
// directory") loses its operation and path, and a ReadError (from a ReadFile
// option that is compiler.ReadSource) gives back its reason.
func ReadErrorText(err error) string {
	var de *diag.Errors
	if errors.As(err, &de) && len(de.Msgs) == 1 && de.Msgs[0].Code == diag.ErrReadFile {
		if reason, ok := strings.CutPrefix(de.Msgs[0].Text, cannotRead); ok {
			return reason
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
