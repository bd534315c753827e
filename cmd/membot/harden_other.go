//go:build !linux

package main

// harden does nothing here: only Linux has PR_SET_DUMPABLE (see
// docs/SECURITY.md for running MCP servers as another user instead).
func harden() error { return nil }
