package access

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAllows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		policy         Policy
		user, chat     int64
		allowed, admin bool
	}{
		{"open to everyone (ACCESS=open)", Policy{Access: "open"}, 1, 1, true, false},
		{"a stranger of an owner's bot", Policy{}, 1, 1, false, false},
		{"a listed user anywhere", Policy{AllowedUsers: map[int64]bool{1: true}}, 1, -100, true, false},
		{"an unlisted user", Policy{AllowedUsers: map[int64]bool{1: true}}, 2, 2, false, false},
		{"anyone in a listed chat", Policy{AllowedChats: map[int64]bool{-100: true}}, 3, -100, true, false},
		{"a listed chat's member elsewhere", Policy{AllowedChats: map[int64]bool{-100: true}}, 3, 3, false, false},
		{"an admin, unlisted", Policy{AllowedUsers: map[int64]bool{1: true}, Admins: map[int64]bool{9: true}}, 9, 9, true, true},
	}
	for _, c := range cases {
		if got := c.policy.Allows(c.user, c.chat); got != c.allowed {
			t.Errorf("%s: Allows = %v, want %v", c.name, got, c.allowed)
		}
		if got := c.policy.IsAdmin(c.user); got != c.admin {
			t.Errorf("%s: IsAdmin = %v, want %v", c.name, got, c.admin)
		}
	}
	if p := (Policy{Admins: map[int64]bool{9: true}}); p.Allows(1, 1) || !p.Allows(9, 9) {
		t.Error("a bot with admins but no allowlist serves a stranger, or not its admin: its admins are its owners")
	}
}

func TestTokensLeftCountsFromMidnightInTheZone(t *testing.T) {
	t.Parallel()
	moscow := time.FixedZone("MSK", 3*3600)
	now := time.Date(2030, 1, 2, 22, 30, 0, 0, time.UTC) // 01:30 on the 3rd in Moscow
	p := Policy{DailyTokenLimit: 1000, Admins: map[int64]bool{9: true}, Location: moscow, Clock: func() time.Time { return now }}
	var asked time.Time
	used := func(since time.Time) (int64, error) { asked = since; return 1200, nil }

	left, limited, err := p.TokensLeft(1, used)
	if err != nil || !limited || left != -200 {
		t.Errorf("TokensLeft = %d, %v, %v; want -200, limited", left, limited, err)
	}
	if want := time.Date(2030, 1, 3, 0, 0, 0, 0, moscow); !asked.Equal(want) {
		t.Errorf("used counted since %v, want %v", asked, want)
	}
	for name, p := range map[string]Policy{"an admin": p, "no limit": {Clock: p.Clock}} {
		user := int64(9)
		if name == "no limit" {
			user = 1
		}
		asked = time.Time{}
		if left, limited, err := p.TokensLeft(user, used); limited || left != 0 || err != nil || !asked.IsZero() {
			t.Errorf("%s: TokensLeft = %d, %v, %v (asked the store: %v); want not limited, not asked", name, left, limited, err, !asked.IsZero())
		}
	}
	away := errors.New("database away")
	if _, _, err := p.TokensLeft(1, func(time.Time) (int64, error) { return 0, away }); !errors.Is(err, away) {
		t.Errorf("TokensLeft: %v, want the store's error", err)
	}
}

func TestDaysAndMonthsStartInTheZone(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 3, 31, 23, 0, 0, 0, time.UTC)
	moscow := time.FixedZone("MSK", 3*3600)
	cases := []struct {
		loc        *time.Location
		day, month time.Time
	}{
		{nil, time.Date(2030, 3, 31, 0, 0, 0, 0, time.UTC), time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC)},
		{moscow, time.Date(2030, 4, 1, 0, 0, 0, 0, moscow), time.Date(2030, 4, 1, 0, 0, 0, 0, moscow)},
	}
	for _, c := range cases {
		p := Policy{Location: c.loc}
		if got := p.DayStart(at); !got.Equal(c.day) {
			t.Errorf("%v: DayStart = %v, want %v", p.Zone(), got, c.day)
		}
		if got := p.MonthStart(at); !got.Equal(c.month) {
			t.Errorf("%v: MonthStart = %v, want %v", p.Zone(), got, c.month)
		}
	}
	if now := (&Policy{}).Now(); time.Since(now) > time.Minute || time.Until(now) > time.Minute {
		t.Errorf("Now without a clock = %v, want about now", now)
	}
}

func TestChatAdminsAsksOncePerUserAndChat(t *testing.T) {
	t.Parallel()
	statuses := map[[2]int64]string{{-1, 1}: "creator", {-1, 2}: "administrator", {-1, 3}: "member", {-2, 1}: "left"}
	asked := map[[2]int64]int{}
	status := func(_ context.Context, chat, user int64) (string, error) {
		asked[[2]int64{chat, user}]++
		return statuses[[2]int64{chat, user}], nil
	}
	var c ChatAdmins
	for range 3 {
		for key, st := range statuses {
			admin, err := c.Is(context.Background(), key[0], key[1], status)
			if err != nil {
				t.Fatal(err)
			}
			if want := st == "creator" || st == "administrator"; admin != want {
				t.Errorf("Is(%v) = %v, want %v (%s)", key, admin, want, st)
			}
		}
	}
	for key := range statuses {
		if asked[key] != 1 {
			t.Errorf("status of %v asked %d times, want once", key, asked[key])
		}
	}
}

func TestChatAdminsRemembersNoFailure(t *testing.T) {
	t.Parallel()
	down := errors.New("telegram away")
	calls := 0
	var c ChatAdmins
	status := func(context.Context, int64, int64) (string, error) {
		calls++
		if calls == 1 {
			return "", down
		}
		return "administrator", nil
	}
	if admin, err := c.Is(context.Background(), -1, 1, status); !errors.Is(err, down) || admin {
		t.Errorf("Is = %v, %v; want the failure", admin, err)
	}
	if admin, err := c.Is(context.Background(), -1, 1, status); err != nil || !admin || calls != 2 {
		t.Errorf("Is after a failure = %v, %v after %d calls; want asked again, an admin", admin, err, calls)
	}
}
