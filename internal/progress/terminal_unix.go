//go:build unix

package progress

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalWidth says whether f is a terminal and how many columns it has (0
// when it does not say). The window-size ioctl answers both at once: it fails
// on anything that is not a terminal.
func terminalWidth(f *os.File) (cols int, ok bool) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, false
	}
	return int(ws.Col), true
}
