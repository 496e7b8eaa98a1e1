// Package fsutil reads the files users hand to waverig (HLSL sources, case files,
// expectation files, results files) safely: only regular files, never a device
// or a FIFO that could block or never end, and never more than a size limit.
package fsutil

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ReadRegular reads the file at path if it is a regular file of at most
// limit bytes. Devices (/dev/zero), FIFOs, directories and sockets are
// refused: the file is opened without blocking (a FIFO would wait for a
// writer) and checked with Fstat, and at most limit+1 bytes are read.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fileKind(st.Mode()))
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s is %d bytes, more than the limit of %d", path, st.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is more than the limit of %d bytes", path, limit)
	}
	return data, nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// OpenRegular opens path for reading if it is a regular file (without blocking
// on a FIFO); for files read as a stream, such as results.jsonl.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fileKind(st.Mode()))
	}
	return f, nil
}
