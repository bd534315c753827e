package pg

import (
	"net"
	"syscall"
	"time"
)

// A connection whose peer went away without a word (a NAT or firewall that
// dropped its state, a host that vanished) would hang a query for as long as
// the kernel retransmits, about 15 minutes, and with it a chat. So database
// connections send keepalive probes after deadPeerAfter/2 of silence, and a
// write nobody acknowledges fails after deadPeerAfter (TCP_USER_TIMEOUT,
// where the system has it). The query then fails as the database being
// away does, and is retried on a fresh connection.
const deadPeerAfter = 30 * time.Second

// dialer is the dialer of the pool's connections.
func dialer() *net.Dialer {
	return &net.Dialer{
		KeepAliveConfig: net.KeepAliveConfig{Enable: true, Idle: deadPeerAfter / 2, Interval: deadPeerAfter / 6, Count: 3},
		Control: func(network, _ string, c syscall.RawConn) error {
			if network != "tcp" && network != "tcp4" && network != "tcp6" {
				return nil // a Unix socket has no peer to lose
			}
			return setUserTimeout(c, deadPeerAfter)
		},
	}
}
