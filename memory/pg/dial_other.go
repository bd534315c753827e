//go:build !linux

package pg

import (
	"syscall"
	"time"
)

// setUserTimeout does nothing where TCP_USER_TIMEOUT is not known: the
// keepalive probes still find a dead peer of an idle connection.
func setUserTimeout(syscall.RawConn, time.Duration) error { return nil }
