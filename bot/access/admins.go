package access

import (
	"context"
	"sync"
	"time"
)

// ChatAdmins remembers who administers which chat: whether a user is the
// creator or an administrator of a chat (getChatMember, asked through
// status) is kept for memberTTL, so that a flood of presses or /stop costs
// a call per user, not one each. The zero value is ready to use.
type ChatAdmins struct {
	mu      sync.Mutex
	members map[[2]int64]member
}

// Is tells whether userID administers chatID, asking status when it does
// not know lately.
func (c *ChatAdmins) Is(ctx context.Context, chatID, userID int64, status func(ctx context.Context, chatID, userID int64) (string, error)) (bool, error) {
	key := [2]int64{chatID, userID}
	now := time.Now()
	c.mu.Lock()
	m, ok := c.members[key]
	c.mu.Unlock()
	if ok && now.Before(m.until) {
		return m.admin, nil
	}
	st, err := status(ctx, chatID, userID)
	if err != nil {
		return false, err
	}
	admin := st == "creator" || st == "administrator"
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.members == nil || len(c.members) >= maxMembersKept {
		c.members = map[[2]int64]member{} // bounded: forgetting only costs a call
	}
	c.members[key] = member{admin: admin, until: now.Add(memberTTL)}
	return admin, nil
}

// How long, and for how many users at once, a chat member's status is kept.
const (
	memberTTL      = time.Minute
	maxMembersKept = 10000
)

// member is a chat member's status as ChatAdmins keeps it.
type member struct {
	admin bool
	until time.Time
}
