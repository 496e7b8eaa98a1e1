//go:build unix

package produce

import (
	"os/exec"
	"syscall"
	"time"
)

// killGroupOnCancel runs a command compiler in its own process group and,
// when its deadline passes, kills the whole group: a wrapper script killed
// alone would leave the compiler it started running, orphaned, one more per
// timed-out kernel. WaitDelay bounds the wait for output pipes a surviving
// grandchild might hold.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
}
