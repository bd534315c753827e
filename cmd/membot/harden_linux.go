package main

import "golang.org/x/sys/unix"

// harden marks the process not dumpable: /proc/<pid>/environ and mem,
// and ptrace, are then closed to other processes of the same user, such
// as the stdio MCP servers the bot starts, so the bot's token and keys
// stay in it. (Its children, once they exec, are dumpable again.)
func harden() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
