//go:build !unix

package mcptools

import "os/exec"

// ownGroup does nothing where there are no process groups.
func ownGroup(*exec.Cmd) {}

// killGroup kills the process alone, where there are no process groups.
func killGroup(cmd *exec.Cmd, _ bool) { cmd.Process.Kill() }
