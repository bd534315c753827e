package filetext

import (
	"os/exec"
	"syscall"
)

// dieWithBot has the kernel kill the parser when the bot dies, so a killed
// bot leaves no parser running out its CPU limit.
func dieWithBot(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
