package memory_test

import (
	"context"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A database connection that loses its peer silently must fail within
// 30 s, not hang for the kernel's 15 minutes of retransmissions: the
// socket has keepalive probes after 15 s and a 30 s TCP_USER_TIMEOUT.
func TestDatabaseConnectionsNoticeADeadPeer(t *testing.T) {
	t.Parallel()
	store := open(t)
	conn, err := store.Pool().Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	sc, ok := conn.Conn().PgConn().Conn().(syscall.Conn)
	if !ok {
		t.Fatalf("the connection is a %T, not a socket", conn.Conn().PgConn().Conn())
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var userTimeout, keepalive, idle int
	var errs [3]error
	raw.Control(func(fd uintptr) {
		userTimeout, errs[0] = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT)
		keepalive, errs[1] = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_KEEPALIVE)
		idle, errs[2] = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_KEEPIDLE)
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if userTimeout != 30_000 || keepalive != 1 || idle != 15 {
		t.Fatalf("TCP_USER_TIMEOUT %d ms (want 30000), SO_KEEPALIVE %d (want 1), TCP_KEEPIDLE %d s (want 15)", userTimeout, keepalive, idle)
	}
}
