package main

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// harden marks the process not dumpable: /proc/<pid>/environ and mem,
// and ptrace, are then closed to other processes of the same user, such
// as the stdio MCP servers the bot starts, so the bot's token and keys
// stay in it. (Its children, once they exec, are dumpable again.) Run as
// root, it also takes CAP_SYS_PTRACE out of the capabilities its children
// can ever have: with it they could read the bot all the same.
func harden() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return nil
	}
	// The bounding set is a thread's: it is dropped on every thread, since
	// Go starts a child from whichever thread it runs on. (A build with
	// cgo, as under -race, cannot do that: then only this thread's.)
	_, _, errno := syscall.AllThreadsSyscall(syscall.SYS_PRCTL, unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0)
	var err error
	if errno != 0 {
		err = errno
	}
	if errors.Is(err, syscall.ENOTSUP) {
		err = unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_SYS_PTRACE, 0, 0, 0)
	}
	if errors.Is(err, unix.EINVAL) { // no such capability here: nobody has it
		return nil
	}
	return err
}
