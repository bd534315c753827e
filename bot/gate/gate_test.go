package gate

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

var en = texts.For("en")

func TestAdmitServesAndRefusesByMode(t *testing.T) {
	allowlist := func() *access.Policy {
		return &access.Policy{AllowedUsers: map[int64]bool{friend: true}, Admins: map[int64]bool{admin: true}}
	}
	ownerMode := func() *access.Policy { return &access.Policy{} }
	claimed := func(w *world) {
		w.grants[key(memory.KindUser, owner)] = memory.AccessOwner
		w.grants[key(memory.KindUser, friend)] = memory.AccessAllowed
		w.grants[key(memory.KindUser, blocked)] = memory.AccessBlocked
	}
	cases := []struct {
		name         string
		policy       func() *access.Policy
		setup        func(w *world)
		user, chat   int64
		served       bool
		reply        string // what the sender is told ("": nothing)
		ownerIsAsked bool
	}{
		{name: "open serves a stranger", policy: func() *access.Policy { return &access.Policy{Access: "open"} },
			user: stranger, chat: stranger, served: true},
		{name: "allowlist serves whom it names", policy: allowlist, user: friend, chat: friend, served: true},
		{name: "allowlist serves an admin", policy: allowlist, user: admin, chat: admin, served: true},
		{name: "allowlist serves a chat it names",
			policy: func() *access.Policy { return &access.Policy{AllowedChats: map[int64]bool{group: true}} },
			user:   stranger, chat: group, served: true},
		{name: "allowlist tells a stranger their id", policy: allowlist, user: stranger, chat: stranger,
			reply: en.AccessDenied(stranger)},
		{name: "allowlist tells a group its id too", policy: allowlist, user: stranger, chat: group,
			reply: en.AccessDenied(stranger) + "\n" + en.GroupID(group)},
		{name: "owner mode serves the owner", policy: ownerMode, setup: claimed, user: owner, chat: owner, served: true},
		{name: "owner mode serves the owner in any group", policy: ownerMode, setup: claimed, user: owner, chat: group, served: true},
		{name: "owner mode serves whom the owner allowed", policy: ownerMode, setup: claimed, user: friend, chat: friend, served: true},
		{name: "owner mode asks about a group of an allowed user", policy: ownerMode, setup: claimed, user: friend, chat: group,
			reply: en.PairingAskedGroup, ownerIsAsked: true},
		{name: "owner mode refuses a blocked user without a word", policy: ownerMode, setup: claimed, user: blocked, chat: blocked},
		{name: "owner mode asks the owner about a stranger", policy: ownerMode, setup: claimed, user: stranger, chat: stranger,
			reply: en.PairingAsked, ownerIsAsked: true},
		{name: "owner mode serves everyone in an allowed group", policy: ownerMode,
			setup: func(w *world) { claimed(w); w.grants[key(memory.KindGroup, group)] = memory.AccessAllowed },
			user:  stranger, chat: group, served: true},
		{name: "owner mode is silent in a blocked group", policy: ownerMode,
			setup: func(w *world) { claimed(w); w.grants[key(memory.KindGroup, group)] = memory.AccessBlocked },
			user:  friend, chat: group},
		{name: "an unclaimed bot serves no one", policy: ownerMode, user: stranger, chat: stranger, reply: en.Unclaimed},
		{name: "an unclaimed bot with admins asks them", policy: func() *access.Policy { return &access.Policy{Admins: map[int64]bool{admin: true}} },
			user: stranger, chat: stranger, reply: en.PairingAsked, ownerIsAsked: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld()
			if c.setup != nil {
				c.setup(w)
			}
			g := gateOf(w, c.policy())
			if stop := admit(t, g, w.arrival(Message, c.user, c.chat)); stop == c.served {
				t.Fatalf("stopped = %v, want served = %v", stop, c.served)
			}
			var want []string
			if c.reply != "" {
				want = []string{c.reply}
			}
			if !slices.Equal(w.replies, want) {
				t.Fatalf("replies = %q, want %q", w.replies, want)
			}
			if refused := w.calls["Refuse"] > 0; refused == c.served {
				t.Fatalf("refusal recorded = %v for served = %v", refused, c.served)
			}
			if asked := len(w.sent) > 0; asked != c.ownerIsAsked {
				t.Fatalf("owner asked = %v (%v), want %v", asked, w.sent, c.ownerIsAsked)
			}
		})
	}
}

func TestOwnerIsAskedWithButtonsAndTheStrangerIsToldOnce(t *testing.T) {
	w := newWorld()
	w.grants[key(memory.KindUser, owner)] = memory.AccessOwner
	w.names[owner] = memory.User{TelegramUserID: owner, LanguageCode: "ru"}
	g := gateOf(w, &access.Policy{})
	for range 3 {
		if !admit(t, g, w.arrival(Message, stranger, stranger)) {
			t.Fatal("a stranger was served")
		}
	}
	if !slices.Equal(w.replies, []string{en.PairingAsked}) {
		t.Fatalf("the stranger was told %q, want the one notice that the owner was asked", w.replies)
	}
	if len(w.requests) != 1 || len(w.sent) != 1 {
		t.Fatalf("requests %v, sent %v: want one request, told once", w.requests, w.sent)
	}
	ru := texts.For("ru")
	told := w.sent[0]
	if told.chat != owner || !strings.Contains(told.text, "user4") || len(told.buttons) != 1 || len(told.buttons[0]) != 3 ||
		told.buttons[0][0].Text != ru.PairingAllow || told.buttons[0][2].Data != "pair:block:1" {
		t.Fatalf("the owner was told %+v: want the request in their language with Allow / Deny / Block", told)
	}
	if len(w.events) != 0 {
		t.Fatalf("events %v: a refused stranger's message must not count as arrived", w.events)
	}
}

func TestAllowlistRefusesAStrangerOnceADay(t *testing.T) {
	w := newWorld()
	g := gateOf(w, &access.Policy{AllowedUsers: map[int64]bool{friend: true}})
	for range 3 {
		admit(t, g, w.arrival(Message, stranger, stranger))
	}
	admit(t, g, w.arrival(Message, stranger, group)) // another chat: told there too
	if want := []string{en.AccessDenied(stranger), en.AccessDenied(stranger) + "\n" + en.GroupID(group)}; !slices.Equal(w.replies, want) {
		t.Fatalf("replies = %q, want %q", w.replies, want)
	}
	if w.calls["Refuse"] != 4 {
		t.Fatalf("%d refusals recorded, want every one of 4", w.calls["Refuse"])
	}
}

func TestLimits(t *testing.T) {
	cases := []struct {
		name   string
		usage  userdata.Usage
		user   int64
		kind   Kind
		spends bool
		task   int64
		stop   bool
		reply  string
	}{
		{name: "under the rate", usage: userdata.Usage{Received: 1}, user: friend, kind: Message, spends: true},
		{name: "over the rate: told", usage: userdata.Usage{Received: 2}, user: friend, kind: Message, spends: true,
			stop: true, reply: en.RateLimited(2)},
		{name: "over the rate, told this minute", usage: userdata.Usage{Received: 5, RateNotices: 1}, user: friend, kind: Message,
			stop: true},
		{name: "tokens spent: a message", usage: userdata.Usage{TokensToday: 100}, user: friend, kind: Message, spends: true,
			stop: true, reply: en.TokenLimit(int64(100), (&access.Policy{}).Zone())},
		{name: "tokens spent: a command that costs none", usage: userdata.Usage{TokensToday: 100}, user: friend, kind: Command},
		{name: "an admin is never limited", usage: userdata.Usage{Received: 50, TokensToday: 1000}, user: admin, kind: Message, spends: true},
		{name: "tokens spent: a press that calls the model", usage: userdata.Usage{TokensToday: 100}, user: friend, kind: Press,
			spends: true, stop: true, reply: en.TokenLimit(int64(100), (&access.Policy{}).Zone())},
		{name: "tokens spent: a scheduled run", usage: userdata.Usage{TokensToday: 100}, user: friend, kind: Message, spends: true,
			task: 9, stop: true, reply: en.TokenLimit(int64(100), (&access.Policy{}).Zone())},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld()
			w.usage[c.user] = c.usage
			g := gateOf(w, &access.Policy{Access: "open", Admins: map[int64]bool{admin: true}, RatePerMinute: 2, DailyTokenLimit: 100})
			a := w.arrival(c.kind, c.user, c.user)
			a.Spends, a.TaskID = c.spends, c.task
			if stop := admit(t, g, a); stop != c.stop {
				t.Fatalf("stopped = %v, want %v", stop, c.stop)
			}
			var want []string
			if c.reply != "" {
				want = []string{c.reply}
			}
			if !slices.Equal(w.replies, want) {
				t.Fatalf("replies = %q, want %q", w.replies, want)
			}
			if stopped := len(w.events) == 1 && w.events[0].Type == memory.EventRateLimited; stopped != c.stop {
				t.Fatalf("events %v: want one rate_limited event when stopped", w.events)
			}
			if c.kind == Press && c.stop && !slices.Equal(w.answers, []string{""}) {
				t.Fatalf("a stopped press was answered %q, want its spinner stopped", w.answers)
			}
		})
	}
}

func TestAScheduledRunOverTheLimitIsToldOnceADay(t *testing.T) {
	w := newWorld()
	w.usage[friend] = userdata.Usage{TokensToday: 100}
	g := gateOf(w, &access.Policy{Access: "open", DailyTokenLimit: 100})
	for range 3 {
		a := w.arrival(Message, friend, friend)
		a.TaskID = 9
		if !admit(t, g, a) {
			t.Fatal("a run over the limit was let through")
		}
	}
	if len(w.replies) != 1 {
		t.Fatalf("told %q, want once", w.replies)
	}
}

func TestARunOfSomeoneNoLongerServedDropsTheirTasks(t *testing.T) {
	cases := []struct {
		name   string
		policy *access.Policy
		setup  func(w *world)
	}{
		{name: "taken out of the allowlist", policy: &access.Policy{AllowedUsers: map[int64]bool{friend: true}}},
		{name: "no longer allowed by the owner", policy: &access.Policy{},
			setup: func(w *world) { w.grants[key(memory.KindUser, owner)] = memory.AccessOwner }},
		{name: "blocked by the owner", policy: &access.Policy{},
			setup: func(w *world) { w.grants[key(memory.KindUser, stranger)] = memory.AccessBlocked }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld()
			if c.setup != nil {
				c.setup(w)
			}
			a := w.arrival(Message, stranger, stranger)
			a.TaskID = 9
			if !admit(t, gateOf(w, c.policy), a) {
				t.Fatal("the run was let through")
			}
			if !slices.Equal(w.dropped, []int64{stranger}) || len(w.replies)+len(w.sent)+len(w.requests) != 0 {
				t.Fatalf("dropped %v, replies %q, sent %v, requests %v: want the tasks dropped and nothing said or asked",
					w.dropped, w.replies, w.sent, w.requests)
			}
		})
	}
}

func TestOwnerModeAsksWhoAndHowMuchInOneTrip(t *testing.T) {
	for _, limited := range []bool{false, true} {
		w := newWorld()
		w.grants[key(memory.KindUser, friend)] = memory.AccessAllowed
		p := &access.Policy{}
		if limited {
			p.RatePerMinute = 5
		}
		if admit(t, gateOf(w, p), w.arrival(Message, friend, friend)) {
			t.Fatal("an allowed user was stopped")
		}
		want := map[string]int{"AccessOf": 1}
		if limited {
			want = map[string]int{"AccessAndUsage": 1}
		}
		for _, name := range []string{"AccessOf", "RecentUsage", "AccessAndUsage"} {
			if w.calls[name] != want[name] {
				t.Fatalf("limited %v: calls %v, want %v", limited, w.calls, want)
			}
		}
	}
}

func TestClaim(t *testing.T) {
	const code = "ABCDEFGHJK"
	start := func(w *world, user, chat int64, args string) Arrival {
		a := w.arrival(Command, user, chat)
		a.Command, a.Args, a.Spends = "start", args, false
		return a
	}
	t.Run("the right code makes the owner", func(t *testing.T) {
		w := newWorld()
		w.code = code
		g := gateOf(w, &access.Policy{})
		if !admit(t, g, start(w, stranger, stranger, " abcde-fghjk ")) {
			t.Fatal("the claim went on to the command")
		}
		if w.grants[key(memory.KindUser, stranger)] != memory.AccessOwner || !g.Policy.Owners.Has(stranger) || !g.Policy.IsAdmin(stranger) {
			t.Fatalf("grants %v: want the sender the owner, and an admin", w.grants)
		}
		if want := en.ClaimDone(texts.Author("user4", "", stranger)); !slices.Equal(w.replies, []string{want}) {
			t.Fatalf("replies %q, want %q", w.replies, want)
		}
		if len(w.events) != 1 || w.events[0].Type != memory.EventMessageReceived || w.calls["Refuse"] != 0 {
			t.Fatalf("events %v, refusals %d: the claim is the owner's first message, not a refusal", w.events, w.calls["Refuse"])
		}
		if admit(t, g, w.arrival(Message, stranger, stranger)) {
			t.Fatal("the owner's next message was stopped")
		}
	})
	t.Run("wrong codes are counted and then not checked", func(t *testing.T) {
		w := newWorld()
		w.code = code
		g := gateOf(w, &access.Policy{})
		for range access.WrongCodesPerHour + 2 {
			admit(t, g, start(w, stranger, stranger, "WRONGCODE1"))
		}
		want := []string{en.ClaimWrong(4), en.ClaimWrong(3), en.ClaimWrong(2), en.ClaimWrong(1), en.ClaimWrongLast}
		if !slices.Equal(w.replies, want) {
			t.Fatalf("replies %q, want %q", w.replies, want)
		}
		if admit(t, g, start(w, stranger, stranger, code)); w.claimed() {
			t.Fatal("the right code was taken after too many wrong ones")
		}
		if w.calls["Refuse"] != access.WrongCodesPerHour+3 {
			t.Fatalf("%d refusals, want every wrong code refused", w.calls["Refuse"])
		}
	})
	t.Run("an expired code is renewed in the log", func(t *testing.T) {
		w := newWorld()
		g := gateOf(w, &access.Policy{})
		admit(t, g, start(w, stranger, stranger, code))
		if !slices.Equal(w.replies, []string{en.ClaimExpired}) || w.calls["AccessClaim"] != 1 || w.code == "" {
			t.Fatalf("replies %q, claims %d, code %q: want told it expired and a new code made", w.replies, w.calls["AccessClaim"], w.code)
		}
	})
	t.Run("a code in a group claims nothing", func(t *testing.T) {
		w := newWorld()
		w.code = code
		admit(t, gateOf(w, &access.Policy{}), start(w, stranger, group, code))
		if w.claimed() || !slices.Equal(w.replies, []string{en.Unclaimed}) {
			t.Fatalf("grants %v, replies %q: want refused as unclaimed", w.grants, w.replies)
		}
	})
	t.Run("a code once the bot is claimed asks the owner", func(t *testing.T) {
		w := newWorld()
		w.grants[key(memory.KindUser, owner)] = memory.AccessOwner
		admit(t, gateOf(w, &access.Policy{}), start(w, stranger, stranger, code))
		if !slices.Equal(w.replies, []string{en.PairingAsked}) || len(w.requests) != 1 {
			t.Fatalf("replies %q, requests %v: want the owner asked", w.replies, w.requests)
		}
	})
}

func TestClaimStatus(t *testing.T) {
	w := newWorld()
	st, err := ClaimStatus(context.Background(), &access.Policy{}, w, "membot")
	if err != nil || st.Claimed || st.Code == "" || st.Link != access.ClaimLink("membot", st.Code) {
		t.Fatalf("status %+v, %v: want unclaimed with a code and its link", st, err)
	}
	again, _ := ClaimStatus(context.Background(), &access.Policy{}, w, "membot")
	if again.Code != st.Code {
		t.Fatalf("code %q then %q: every start shows the same one", st.Code, again.Code)
	}
	for _, p := range []*access.Policy{{Access: "open"}, {Admins: map[int64]bool{admin: true}}} {
		if st, _ := ClaimStatus(context.Background(), p, w, "membot"); st.Code != "" {
			t.Fatalf("%v: status %+v, want no code", p, st)
		}
	}
}

func TestPairingPresses(t *testing.T) {
	cases := []struct {
		name      string
		by        int64
		kind      string // of the request
		args      string
		notice    string
		status    string // the grant after ("": none)
		askerTold string
		leaves    bool
	}{
		{name: "allow a user", by: owner, kind: memory.KindUser, args: "allow:1", status: memory.AccessAllowed, askerTold: en.PairingAllowedYou},
		{name: "deny a user", by: owner, kind: memory.KindUser, args: "deny:1", status: memory.AccessDenied, askerTold: en.PairingDeniedYou},
		{name: "block a user: told nothing", by: admin, kind: memory.KindUser, args: "block:1", status: memory.AccessBlocked},
		{name: "allow a group", by: owner, kind: memory.KindGroup, args: "allow:1", status: memory.AccessAllowed, askerTold: en.PairingAllowedGroup},
		{name: "deny a group: left", by: owner, kind: memory.KindGroup, args: "deny:1", status: memory.AccessDenied,
			askerTold: en.PairingDeniedGroup, leaves: true},
		{name: "someone else may not", by: friend, kind: memory.KindUser, args: "allow:1", notice: en.PairingOwnersOnly},
		{name: "a request decided already", by: owner, kind: memory.KindUser, args: "allow:2", notice: en.PairingGone},
		{name: "a forged verb", by: owner, kind: memory.KindUser, args: "own:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld()
			w.grants[key(memory.KindUser, owner)] = memory.AccessOwner
			p := &access.Policy{Admins: map[int64]bool{admin: true}}
			g := gateOf(w, p)
			p.Owners.Add(owner)
			asker, where := stranger, stranger
			if c.kind == memory.KindGroup {
				where = group
			}
			if stop := admit(t, g, w.arrival(Message, asker, where)); !stop || len(w.requests) != 1 {
				t.Fatalf("requests %v: want one opened", w.requests)
			}
			w.sent, w.replies = nil, nil
			if err := g.PressPair(context.Background(), w.call(p, c.by, c.by, c.args)); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(w.answers, []string{c.notice}) {
				t.Fatalf("press answered %q, want %q", w.answers, c.notice)
			}
			target := asker
			if c.kind == memory.KindGroup {
				target = group
			}
			if got := w.grants[key(c.kind, target)]; got != c.status {
				t.Fatalf("grant %q, want %q", got, c.status)
			}
			if decided := c.status != ""; decided != (len(w.edits) == 1) {
				t.Fatalf("edits %v: the decider's message says what was decided, and only then", w.edits)
			}
			var told []sent
			if c.askerTold != "" {
				told = []sent{{chat: where, text: c.askerTold}}
			}
			if len(w.sent) != len(told) || (len(told) == 1 && (w.sent[0].chat != told[0].chat || w.sent[0].text != told[0].text)) {
				t.Fatalf("sent %v, want %v", w.sent, told)
			}
			if left := len(w.left) == 1 && w.left[0] == group; left != c.leaves {
				t.Fatalf("left %v, want leaving %v", w.left, c.leaves)
			}
		})
	}
}

func TestGroupAdmin(t *testing.T) {
	w := newWorld()
	w.statuses[[2]int64{group, friend}] = "creator"
	w.statuses[[2]int64{group, stranger}] = "administrator"
	g := gateOf(w, &access.Policy{Admins: map[int64]bool{admin: true}})
	cases := []struct {
		name    string
		user    int64
		chat    int64
		admin   bool
		ownRows int64
	}{
		{"anyone in a private chat", blocked, blocked, true, 0},
		{"the bot's admin in any group", admin, group, true, 0},
		{"the group's creator", friend, group, true, 0},
		{"the group's administrator", stranger, group, true, 0},
		{"a member", blocked, group, false, blocked},
	}
	for _, c := range cases {
		ok, err := g.GroupAdmin(context.Background(), c.user, c.chat, c.user == c.chat)
		if err != nil || ok != c.admin {
			t.Fatalf("%s: admin = %v, %v; want %v", c.name, ok, err, c.admin)
		}
		rows, err := g.OwnRowsOnly(context.Background(), c.user, c.chat, c.user == c.chat)
		if err != nil || rows != c.ownRows {
			t.Fatalf("%s: own rows of %d, %v; want %d", c.name, rows, err, c.ownRows)
		}
	}
	if w.calls["MemberStatus"] != 3 {
		t.Fatalf("getChatMember asked %d times, want once per member of the group (remembered lately)", w.calls["MemberStatus"])
	}
}

func TestUsersCommand(t *testing.T) {
	w := newWorld()
	w.grants[key(memory.KindUser, owner)] = memory.AccessOwner
	p := &access.Policy{Admins: map[int64]bool{admin: true}}
	g := gateOf(w, p)
	p.Owners.Add(owner)
	steps := []struct {
		args  string
		reply string
	}{
		{"allow 7", en.UsersAllowedNow(int64(7))},
		{"allow 7", en.UsersNothing(int64(7))},
		{"block -100", en.UsersBlockedNow(int64(-100))},
		{"revoke 7", en.UsersRevoked(int64(7))},
		{"revoke 1", en.UsersOwnerStays},
		{"frob 7", en.UsersUsage},
		{"allow", en.UsersUsage},
		{"allow zero", en.UsersUsage},
	}
	for _, s := range steps {
		w.replies = nil
		if err := g.Users(context.Background(), w.call(p, owner, owner, s.args)); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(w.replies, []string{s.reply}) {
			t.Fatalf("/users %s: %q, want %q", s.args, w.replies, s.reply)
		}
	}
	if w.grants[key(memory.KindGroup, group)] != memory.AccessBlocked {
		t.Fatalf("grants %v: want the group blocked", w.grants)
	}

	w.grants[key(memory.KindUser, friend)] = memory.AccessAllowed
	admit(t, g, w.arrival(Message, stranger, stranger)) // a request waits
	w.replies, w.buttons = nil, nil
	if err := g.Users(context.Background(), w.call(p, owner, owner, "")); err != nil {
		t.Fatal(err)
	}
	list := w.replies[0]
	for _, want := range []string{"id 2", "(id 1)", "(id 3)", "user4", en.UsersHeads[4]} {
		if !strings.Contains(list, want) {
			t.Fatalf("the list %q lacks %q", list, want)
		}
	}
	buttons := w.buttons[0]
	if len(buttons) != 2 || buttons[0][0].Data != "users:revoke:3" || buttons[1][0].Data != "pair:allow:1" {
		t.Fatalf("buttons %v: want Revoke of the allowed and the request's Allow / Deny / Block", buttons)
	}

	w.answers = nil
	for _, press := range []struct {
		by     int64
		args   string
		notice string
	}{
		{friend, "revoke:3", en.PairingOwnersOnly},
		{owner, "frob:3", ""},
		{admin, "revoke:3", en.UsersRevoked(int64(3))},
	} {
		if err := g.PressUsers(context.Background(), w.call(p, press.by, press.by, press.args)); err != nil {
			t.Fatal(err)
		}
		if got := w.answers[len(w.answers)-1]; got != press.notice {
			t.Fatalf("press %s by %d answered %q, want %q", press.args, press.by, got, press.notice)
		}
	}
	if _, ok := w.grants[key(memory.KindUser, friend)]; ok {
		t.Fatalf("grants %v: want the friend revoked", w.grants)
	}
}

func TestJoinedAGroup(t *testing.T) {
	cases := []struct {
		name     string
		policy   *access.Policy
		by       int64
		old, new string
		grant    string // the group's after
		reply    string
	}{
		{name: "added by the owner: allowed", policy: &access.Policy{}, by: owner, old: "left", new: "member", grant: memory.AccessAllowed},
		{name: "added by a stranger: the owner is asked", policy: &access.Policy{}, by: stranger, old: "left", new: "member",
			reply: en.PairingAskedGroup},
		{name: "removed: forgotten", policy: &access.Policy{}, by: owner, old: "member", new: "kicked"},
		{name: "a change of rights", policy: &access.Policy{}, by: stranger, old: "member", new: "administrator", grant: memory.AccessBlocked},
		{name: "not in owner mode", policy: &access.Policy{Access: "open"}, by: stranger, old: "left", new: "member", grant: memory.AccessBlocked},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld()
			w.grants[key(memory.KindUser, owner)] = memory.AccessOwner
			w.grants[key(memory.KindGroup, group)] = memory.AccessBlocked // as it was: only a change of membership changes it
			if c.old == "left" && c.policy.Mode() == access.Owner {
				delete(w.grants, key(memory.KindGroup, group))
			}
			a := w.arrival(Joined, c.by, group)
			a.Old, a.New = c.old, c.new
			if !admit(t, gateOf(w, c.policy), a) {
				t.Fatal("a membership change went on past the gate")
			}
			if got := w.grants[key(memory.KindGroup, group)]; got != c.grant {
				t.Fatalf("the group's grant %q, want %q", got, c.grant)
			}
			var want []string
			if c.reply != "" {
				want = []string{c.reply}
			}
			if !slices.Equal(w.replies, want) {
				t.Fatalf("replies %q, want %q", w.replies, want)
			}
		})
	}
}

func TestAPressOfSomeoneNotLetIn(t *testing.T) {
	w := newWorld()
	g := gateOf(w, &access.Policy{AllowedUsers: map[int64]bool{friend: true}})
	if !admit(t, g, w.arrival(Press, stranger, group)) {
		t.Fatal("a stranger's press went on")
	}
	if !slices.Equal(w.answers, []string{en.AccessDeniedShort}) || len(w.replies) != 0 || w.calls["Refuse"] != 1 {
		t.Fatalf("answers %q, replies %q, refusals %d: want a short notice on the press and the refusal recorded",
			w.answers, w.replies, w.calls["Refuse"])
	}
	if admit(t, g, w.arrival(Press, friend, group)) {
		t.Fatal("an allowed user's press was stopped")
	}
}

func TestServes(t *testing.T) {
	w := newWorld()
	w.grants[key(memory.KindUser, owner)] = memory.AccessOwner
	w.grants[key(memory.KindUser, friend)] = memory.AccessAllowed
	w.grants[key(memory.KindUser, blocked)] = memory.AccessBlocked
	g := gateOf(w, &access.Policy{})
	for _, c := range []struct {
		user          int64
		serves, admin bool
	}{{owner, true, true}, {friend, true, false}, {stranger, false, false}, {blocked, false, false}} {
		serves, admin, err := g.Serves(context.Background(), c.user)
		if err != nil || serves != c.serves || admin != c.admin {
			t.Fatalf("user %d: serves %v admin %v (%v), want %v %v", c.user, serves, admin, err, c.serves, c.admin)
		}
	}
}

func TestStrangersRequestsAreBounded(t *testing.T) {
	w := newWorld()
	w.grants[key(memory.KindUser, owner)] = memory.AccessOwner
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	g := gateOf(w, &access.Policy{Clock: func() time.Time { return now }})
	for id := int64(10); id < 10+access.MaxPending; id++ {
		admit(t, g, w.arrival(Message, id, id))
	}
	w.replies, w.sent = nil, nil
	admit(t, g, w.arrival(Message, stranger, stranger))
	if !slices.Equal(w.replies, []string{en.PairingFull}) || len(w.sent) != 0 {
		t.Fatalf("replies %q, sent %v: want told the owner has too many requests, and the owner not told", w.replies, w.sent)
	}
	g.Policy.Owners.Add(owner) // seen by the gate as the press came in
	if err := g.PressPair(context.Background(), w.call(g.Policy, owner, owner, "deny:1")); err != nil || w.grants[key(memory.KindUser, 10)] != memory.AccessDenied {
		t.Fatalf("deny: %v, grants %v", err, w.grants)
	}
	// The same day, strangers told already are told nothing more.
	w.replies = nil
	admit(t, g, w.arrival(Message, 10, 10))
	admit(t, g, w.arrival(Message, 11, 11))
	if len(w.replies) != 0 {
		t.Fatalf("strangers told today were told again: %q", w.replies)
	}
	// The next day each is told where they stand, once.
	now = now.Add(24 * time.Hour)
	for range 2 {
		admit(t, g, w.arrival(Message, 10, 10))
		admit(t, g, w.arrival(Message, 11, 11))
	}
	if want := []string{en.PairingDeniedYou, en.PairingWaiting}; !slices.Equal(w.replies, want) {
		t.Fatalf("the next day: %q, want %q", w.replies, want)
	}
}

func TestTokensLeft(t *testing.T) {
	cases := []struct {
		name    string
		limit   int64
		user    int64
		used    int64
		left    int64
		limited bool
		spent   bool
	}{
		{"no limit", 0, friend, 500, 0, false, false},
		{"an admin", 100, admin, 500, 0, false, false},
		{"some left", 100, friend, 30, 70, true, false},
		{"none left", 100, friend, 100, 0, true, true},
		{"over", 100, friend, 130, -30, true, true},
	}
	for _, c := range cases {
		w := newWorld()
		w.usage[c.user] = userdata.Usage{TokensToday: c.used}
		g := gateOf(w, &access.Policy{DailyTokenLimit: c.limit, Admins: map[int64]bool{admin: true}})
		left, limited, err := g.TokensLeft(context.Background(), c.user, 1)
		spent, _ := g.BudgetSpent(context.Background(), c.user, 1)
		if err != nil || left != c.left || limited != c.limited || spent != c.spent {
			t.Fatalf("%s: left %d limited %v spent %v (%v); want %d %v %v", c.name, left, limited, spent, err, c.left, c.limited, c.spent)
		}
	}
}
