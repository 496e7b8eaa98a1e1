package syntax

import "waverig/internal/fsutil"

// MaxSourceBytes is the largest HLSL file (main file or #include) the compiler
// reads: far above any real shader, and it keeps a mistaken path from eating
// the machine's memory.
const MaxSourceBytes = 16 << 20

// ReadSource is how the compiler reads a source file by default: a regular file
// of at most MaxSourceBytes. A device (/dev/zero) or a FIFO is refused instead
// of read forever or waited on.
func ReadSource(path string) ([]byte, error) { return fsutil.ReadRegular(path, MaxSourceBytes) }
