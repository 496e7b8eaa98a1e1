package syntax

import (
	"errors"
	"io/fs"

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

// ReadErrorText is the reason a source could not be read, for a message that
// already names the file: an *fs.PathError ("open a.hlsl: no such file or
// directory") loses its operation and path.
func ReadErrorText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
