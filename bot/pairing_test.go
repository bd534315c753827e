package bot_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/internal/testing/telegramfake"
	"github.com/membot/membot/internal/testing/testkit"
	"github.com/membot/membot/internal/testing/wait"
)

// Strangers of the owner-mode tests, besides Ivan (Russian) and Jane (the
// owner, English).
var (
	bob  = telegramfake.User{ID: 503, FirstName: "Bob", Username: "bob", LanguageCode: "en"}
	carl = telegramfake.User{ID: 504, FirstName: "Carl", LanguageCode: "de"}
	dana = telegramfake.User{ID: 505, FirstName: "Dana", LanguageCode: "en"}
)

// newOwnedHarness is the bot in its default access (owner mode): not yet
// started, without the kit's ACCESS=open.
func newOwnedHarness(t *testing.T) *harness {
	h := newHarness(t)
	delete(h.Env, "ACCESS")
	return h
}

// claimLink matches the start-up line with the claim link and the code.
var claimLink = `claim_link="?https://t\.me/membot_test_bot\?start=([A-Z0-9]+)"? code=([A-Z0-9]+)`

// ownedBy starts the bot in owner mode and claims it for owner.
func ownedBy(t *testing.T, owner telegramfake.User) *harness {
	h := newOwnedHarness(t)
	h.Start()
	code := h.WaitLog(claimLink)[1]
	if got := h.Say(owner, "/start "+code); !strings.Contains(got, "owner now") {
		t.Fatalf("the claim answered %q", got)
	}
	return h
}

// noTextKept fails the test when any stored update or message holds one of
// the words (what refused strangers wrote).
func noTextKept(t *testing.T, h *harness, words ...string) {
	t.Helper()
	for _, w := range words {
		if n := h.Count(`SELECT count(*) FROM updates WHERE payload::text LIKE '%' || $1 || '%'`, w); n != 0 {
			t.Errorf("%d stored updates keep %q", n, w)
		}
		if n := h.Count(`SELECT count(*) FROM messages WHERE content LIKE '%' || $1 || '%'`, w); n != 0 {
			t.Errorf("%d messages keep %q", n, w)
		}
	}
}

// lastWith is the newest message of the chat whose text has part.
func lastWith(t *testing.T, h *harness, chatID int64, part string) telegramfake.Message {
	t.Helper()
	var found telegramfake.Message
	h.WaitUntil(fmt.Sprintf("no message with %q in chat %d", part, chatID), func() bool {
		for _, m := range h.TG.Messages(chatID) {
			if strings.Contains(m.Text, part) {
				found = m
			}
		}
		return found.ID != 0
	})
	return found
}

// The bot starts unclaimed: it logs a claim link, answers nobody, calls no
// model and keeps no stranger's text; the code survives a restart; wrong
// codes are answered and bounded; the first private-chat user with the
// right code owns the bot, and is served.
func TestTheFirstUserWithTheClaimCodeOwnsTheBot(t *testing.T) {
	t.Parallel()
	h := newOwnedHarness(t)
	h.Start()
	m := h.WaitLog(claimLink)
	code := m[1]
	if m[2] != code || !regexp.MustCompile(`^[`+access.CodeAlphabet+`]{10}$`).MatchString(code) {
		t.Fatalf("claim code %q (link) and %q (code): want the same 10 unambiguous characters", code, m[2])
	}
	if n := h.Count(`SELECT count(*) FROM access_claim WHERE code = $1 AND expires_at > now()`, code); n != 1 {
		t.Fatal("the claim code is not kept with an expiry")
	}

	if got := h.Say(jane, "hello, my secret plan"); !strings.Contains(got, "no owner yet") {
		t.Fatalf("a message to an unclaimed bot got %q", got)
	}
	// Restarted, it shows the same code, and says what became of a bot
	// that served everyone before.
	h.Stop()
	if _, err := h.DB.Exec(context.Background(), `INSERT INTO users (telegram_user_id, first_name) VALUES (42, 'Old')`); err != nil {
		t.Fatal(err)
	}
	h.Logs = &testkit.SyncBuffer{} // the restarted bot's lines only
	h.Start()
	if again := h.WaitLog(claimLink)[1]; again != code {
		t.Fatalf("the code changed across a restart: %q, then %q", code, again)
	}
	h.WaitLog(`level=WARN msg="this bot served everyone before.*set ACCESS=open`)

	// Wrong codes: answered, counted, five an hour; kept nowhere.
	for i := 4; i >= 1; i-- {
		if got := h.Say(ivan, fmt.Sprintf("/start WRONG%dCODE", i)); !strings.Contains(got, fmt.Sprintf("Осталось попыток в этот час: %d", i)) {
			t.Fatalf("wrong code answered %q", got)
		}
	}
	if got := h.Say(ivan, "/start WRONG0CODE"); !strings.Contains(got, "последняя попытка") {
		t.Fatalf("the fifth wrong code answered %q", got)
	}
	before := len(h.TG.SentTo(ivan.ID))
	h.WaitDone(h.TG.SendText(ivan, "/start "+code)) // the right code, too late this hour
	if sent := h.TG.SentTo(ivan.ID); len(sent) != before {
		t.Fatalf("a sixth try was answered: %q", sent[before:])
	}
	if n := h.Count(`SELECT count(*) FROM access_grants WHERE status = 'owner'`); n != 0 {
		t.Fatal("a user over the bound of wrong codes became the owner")
	}
	noTextKept(t, h, "WRONG", "secret plan")

	// The right code: the owner, served from now on.
	if got := h.Say(jane, "/start "+strings.ToLower(code)); !strings.Contains(got, "You are this bot's owner now") {
		t.Fatalf("the claim answered %q", got)
	}
	if n := len(h.LLM.Requests()); n != 0 {
		t.Fatalf("%d model calls before the owner wrote", n)
	}
	if got := h.Say(jane, "hi"); got != "echo: hi" {
		t.Fatalf("the owner got %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM access_grants WHERE kind = 'user' AND telegram_id = $1 AND status = 'owner'`, jane.ID); n != 1 {
		t.Fatal("no owner row")
	}
	if n := h.Count(`SELECT count(*) FROM access_claim`); n != 0 {
		t.Fatal("the claim code outlived the claim")
	}
	// The owner is an admin: /users and /stats answer her.
	if got := h.Say(jane, "/users"); !strings.Contains(got, "Owners and admins:\n• Jane (id 502)") {
		t.Fatalf("/users = %q", got)
	}
	// After a restart the bot says whom it serves, with no claim link.
	h.Stop()
	h.Logs = &testkit.SyncBuffer{} // the restarted bot's lines only
	h.Start()
	h.WaitLog(`msg="access: the owner, the admins and whom they allow`)
	if strings.Contains(h.Logs.String(), "claim_link") {
		t.Error("a claimed bot logged a claim link")
	}
}

// After the claim, a stranger's first message asks the owner, at no model
// call and with nothing of what they wrote kept; the owner's Allow lets
// them in, Deny tells them no, Block silences them; only the owner's
// presses count.
func TestAStrangerAsksTheOwnerAndIsAllowedDeniedOrBlocked(t *testing.T) {
	t.Parallel()
	h := ownedBy(t, jane)

	if got := h.Say(ivan, "мой секрет номер один"); !strings.Contains(got, "Я спросил владельца") {
		t.Fatalf("a stranger got %q", got)
	}
	request := lastWith(t, h, jane.ID, "Someone asks to use the bot")
	for _, want := range []string{"Иван (@ivan)", "id: 501", "language: ru", "chat: private"} {
		if !strings.Contains(request.Text, want) {
			t.Errorf("the request %q does not say %q", request.Text, want)
		}
	}
	if b := request.Buttons(); len(b) != 3 || b[0].Data != "pair:allow:1" || b[1].Data != "pair:deny:1" || b[2].Data != "pair:block:1" {
		t.Fatalf("the request's buttons: %+v", b)
	}
	// The rest of the day he is not answered, and asks nobody again.
	h.WaitDone(h.TG.SendText(ivan, "второй секрет"))
	if sent := h.TG.SentTo(ivan.ID); len(sent) != 1 {
		t.Fatalf("the stranger got %d messages: %q", len(sent), sent)
	}
	if n := h.Count(`SELECT count(*) FROM access_requests`); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}

	h.Say(bob, "bob's secret")
	bobs := lastWith(t, h, jane.ID, "Bob (@bob)")
	h.Say(carl, "carl's secret")
	carls := lastWith(t, h, jane.ID, "Carl (id 504)")
	if n := len(h.LLM.Requests()); n != 0 {
		t.Fatalf("%d model calls for strangers", n)
	}

	// Allow: Ivan is told, and served.
	h.Press(jane, request, "pair:allow:1")
	if got := lastWith(t, h, ivan.ID, "Владелец разрешил"); got.Text == "" {
		t.Fatal("the allowed stranger was not told")
	}
	if shown := lastWith(t, h, jane.ID, "Иван (@ivan)"); !strings.Contains(shown.Text, "Иван (@ivan)") ||
		!strings.Contains(shown.Text, "✅ Allowed at") || len(shown.Buttons()) != 0 {
		t.Errorf("the owner's request shows %q %v after Allow", shown.Text, shown.Buttons())
	}
	if got := h.Say(ivan, "привет"); got != "echo: привет" {
		t.Fatalf("the allowed stranger got %q", got)
	}
	// An allowed user is no owner: his press of the owner's buttons does nothing.
	// (In the owner's private chat, it is not even his button.)
	if notice := h.Press(ivan, carls, "pair:allow:3"); !strings.Contains(notice, "не ваша") {
		t.Fatalf("an allowed user's press answered %q", notice)
	}
	// Deny: Bob is told; Block: Carl is told nothing.
	h.Press(jane, bobs, "pair:deny:2")
	lastWith(t, h, bob.ID, "did not allow")
	h.Press(jane, carls, "pair:block:3")
	h.WaitIdle()
	if sent := h.TG.SentTo(carl.ID); len(sent) != 1 {
		t.Fatalf("the blocked stranger got %q", sent)
	}
	if got := h.Press(jane, carls, "pair:allow:3"); !strings.Contains(got, "no longer waits") {
		t.Errorf("a decided request pressed again answered %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM access_grants WHERE telegram_id = $1 AND status = 'blocked'`, carl.ID); n != 1 {
		t.Fatal("Carl is not blocked")
	}
	h.WaitDone(h.TG.SendText(bob, "bob again"))
	h.WaitDone(h.TG.SendText(carl, "carl again"))
	if n := len(h.LLM.Requests()); n != 1 {
		t.Fatalf("model calls = %d, want Ivan's one", n)
	}
	for _, req := range h.LLM.Requests() {
		for _, m := range req.Messages {
			if strings.Contains(m.Content, "секрет") {
				t.Fatalf("the model saw what Ivan wrote before he was allowed: %q", m.Content)
			}
		}
	}
	noTextKept(t, h, "секрет", "bob's secret", "carl's secret", "bob again", "carl again")

	// /users lists them; revoking Ivan makes him a stranger again.
	list := h.Say(jane, "/users")
	for _, want := range []string{"Allowed:\n• Иван (@ivan)", "Blocked:\n• Carl (id 504)", "Waiting for you:\n• nobody"} {
		if !strings.Contains(list, want) {
			t.Errorf("/users = %q, want %q", list, want)
		}
	}
	if got := h.Say(jane, "/users revoke 501"); !strings.Contains(got, "may no longer use the bot") {
		t.Fatalf("/users revoke answered %q", got)
	}
	if got := h.Say(jane, "/users allow 505"); !strings.Contains(got, "505 may use the bot now") {
		t.Fatalf("/users allow answered %q", got)
	}
	if got := h.Say(dana, "hello"); got != "echo: hello" {
		t.Fatalf("a user allowed by /users got %q", got)
	}
	if got := h.Say(jane, "/users block 502"); !strings.Contains(got, "The owner stays the owner") {
		t.Fatalf("blocking the owner answered %q", got)
	}
	// Revoked, Ivan is a stranger again (answered once today already).
	h.WaitDone(h.TG.SendText(ivan, "после отзыва"))
	if n := len(h.LLM.Requests()); n != 2 {
		t.Fatalf("model calls = %d, want Ivan's and Dana's", n)
	}
}

// Requests are bounded: a few wait at once, one per stranger while it
// waits (or a day after a Deny), each expiring after a day. With
// ADMIN_USER_IDS set the bot needs no claim: the admin decides.
func TestPairingRequestsAreBounded(t *testing.T) {
	t.Parallel()
	h := newOwnedHarness(t)
	h.Env["ADMIN_USER_IDS"] = fmt.Sprint(jane.ID)
	h.Start()
	h.WaitLog(`msg="access: the owner, the admins and whom they allow`)
	if strings.Contains(h.Logs.String(), "claim_link") {
		t.Fatal("a bot with an admin logged a claim link")
	}
	for _, u := range []telegramfake.User{ivan, bob, carl} {
		if got := h.Say(u, "hi"); !strings.Contains(got, "спросил владельца") && !strings.Contains(got, "I've asked my owner") {
			t.Fatalf("%s got %q", u.FirstName, got)
		}
	}
	if got := h.Say(dana, "hi"); !strings.Contains(got, "too many requests waiting") {
		t.Fatalf("the fourth stranger got %q", got)
	}
	h.WaitIdle()
	if n := len(h.TG.SentTo(jane.ID)); n != 3 {
		t.Fatalf("the admin got %d requests, want 3", n)
	}
	if n := h.Count(`SELECT count(*) FROM access_requests WHERE status = 'pending'`); n != 3 {
		t.Fatalf("%d pending requests, want 3", n)
	}

	// A day later (the day's refusal moved back) Ivan asks again: his
	// request still waits, so no second one.
	nextDay := func() {
		t.Helper()
		if _, err := h.DB.Exec(context.Background(), `UPDATE access_refusals SET day = day - 1`); err != nil {
			t.Fatal(err)
		}
	}
	nextDay()
	if got := h.Say(ivan, "hi again"); !strings.Contains(got, "Я уже спросил владельца") {
		t.Fatalf("asking again while the request waits got %q", got)
	}
	// Expired, the requests make room: Ivan and Dana ask anew.
	if _, err := h.DB.Exec(context.Background(), `UPDATE access_requests SET created_at = created_at - interval '25 hours',
		expires_at = expires_at - interval '25 hours'`); err != nil {
		t.Fatal(err)
	}
	nextDay()
	for _, u := range []telegramfake.User{ivan, dana} {
		if got := h.Say(u, "hi"); !strings.Contains(got, "спросил владельца") && !strings.Contains(got, "I've asked my owner") {
			t.Fatalf("%s after the requests expired got %q", u.FirstName, got)
		}
	}
	if n := h.Count(`SELECT count(*) FROM access_requests WHERE status = 'pending' AND expires_at > now()`); n != 2 {
		t.Fatalf("%d live requests, want 2", n)
	}
	if got := h.Press(jane, lastWith(t, h, jane.ID, "Иван (@ivan)"), "pair:allow:1"); !strings.Contains(got, "no longer waits") {
		t.Errorf("an expired request's Allow answered %q", got)
	}
	if n := len(h.LLM.Requests()); n != 0 {
		t.Fatalf("%d model calls for strangers", n)
	}
}

// A group added by a stranger is asked about (the owner gets Allow / Deny)
// and left on Deny, its messages unanswered meanwhile; a group the owner
// added is served at once.
func TestAGroupIsServedWhenTheOwnerAddedOrAllowedIt(t *testing.T) {
	t.Parallel()
	h := ownedBy(t, jane)
	bot := h.TG.Bot()
	add := func(group int64, title string, by telegramfake.User) {
		chat := map[string]any{"id": group, "type": "supergroup", "title": title}
		h.TG.AddUpdate("my_chat_member", map[string]any{"chat": chat, "from": by, "date": 1,
			"old_chat_member": map[string]any{"user": bot, "status": "left"},
			"new_chat_member": map[string]any{"user": bot, "status": "member"}})
		h.TG.AddUpdate("message", map[string]any{"chat": chat, "from": by, "date": 1, "new_chat_members": []any{bot}})
		h.WaitIdle()
	}
	const chess, book, owned = -100501, -100502, -100503
	add(chess, "Chess club", ivan)
	if sent := h.TG.SentTo(chess); len(sent) != 1 || !strings.Contains(sent[0], "можно ли мне отвечать в этой группе") {
		t.Fatalf("the group added by a stranger got %q", sent)
	}
	request := lastWith(t, h, jane.ID, "Chess club")
	for _, want := range []string{"chat id -100501", "added by: Иван (@ivan)", "language: ru"} {
		if !strings.Contains(request.Text, want) {
			t.Errorf("the group's request %q does not say %q", request.Text, want)
		}
	}
	if b := request.Buttons(); len(b) != 2 || b[0].Data != "pair:allow:1" || b[1].Data != "pair:deny:1" {
		t.Fatalf("the group request's buttons: %+v", b)
	}
	// Meanwhile a member who mentions the bot is told, once a day, and
	// nobody is asked twice.
	if got := h.SayIn(chess, "supergroup", bob, "@membot_test_bot the group's secret"); !strings.Contains(got, "asked my owner already") {
		t.Fatalf("a member of the group not allowed yet got %q", got)
	}
	if n := len(h.TG.SentTo(jane.ID)); n != 2 { // the claim's answer and the one request
		t.Fatalf("the owner got %d messages", n)
	}
	h.Press(jane, request, "pair:deny:1")
	lastWith(t, h, chess, "не разрешил эту группу")
	h.WaitUntil("the bot did not leave the denied group", func() bool {
		calls := h.TG.Calls("leaveChat")
		return len(calls) == 1 && calls[0].Params["chat_id"] == fmt.Sprint(chess)
	})

	// Added by a stranger and allowed: served from the Allow on.
	add(book, "Book club", bob)
	h.Press(jane, lastWith(t, h, jane.ID, "Book club"), "pair:allow:2")
	lastWith(t, h, book, "allowed this group")
	if got := h.SayIn(book, "supergroup", carl, "@membot_test_bot hello"); !strings.Contains(got, "hello") {
		t.Fatalf("the allowed group got %q", got)
	}
	// Added by the owner: served at once, nobody asked.
	add(owned, "Family", jane)
	if got := h.SayIn(owned, "supergroup", ivan, "@membot_test_bot привет"); !strings.Contains(got, "привет") {
		t.Fatalf("the owner's group got %q", got)
	}
	if n := h.Count(`SELECT count(*) FROM access_requests`); n != 2 {
		t.Errorf("%d requests, want the two strangers' groups", n)
	}
	if n := len(h.LLM.Requests()); n != 2 {
		t.Errorf("model calls = %d, want the two allowed groups'", n)
	}
	noTextKept(t, h, "the group's secret")
	// Removed from a group, the bot forgets it: added again, it is decided anew.
	h.TG.AddUpdate("my_chat_member", map[string]any{"chat": map[string]any{"id": owned, "type": "supergroup", "title": "Family"},
		"from": ivan, "date": 2, "old_chat_member": map[string]any{"user": bot, "status": "member"},
		"new_chat_member": map[string]any{"user": bot, "status": "kicked"}})
	h.WaitIdle()
	if n := h.Count(`SELECT count(*) FROM access_grants WHERE telegram_id = $1`, owned); n != 0 {
		t.Errorf("the group the bot left is still allowed")
	}
}

// Someone the owner allowed stops their own answer as anyone served does:
// a request to stop asks the same rule as the gate.
func TestAnAllowedUserStopsTheirAnswer(t *testing.T) {
	t.Parallel()
	h := newOwnedHarness(t)
	h.Env["STOP_CHECK_INTERVAL"] = "100ms"
	gone, partial := stopTurn(h)
	h.Start()
	code := h.WaitLog(claimLink)[1]
	h.Say(jane, "/start "+code)
	if got := h.Say(jane, "/users allow 501"); !strings.Contains(got, "501 may use the bot now") {
		t.Fatalf("/users allow answered %q", got)
	}
	update := h.TG.SendText(ivan, "расскажи длинную историю")
	if _, ok := h.TG.WaitDrafts(ivan.ID, wait.Timeout(), func(d []telegramfake.Draft) bool {
		return len(d) > 0 && d[len(d)-1].Text == strings.TrimSpace(partial)
	}); !ok {
		t.Fatalf("the draft never showed the first words: %+v", h.TG.Drafts(ivan.ID))
	}
	stop := h.TG.PressStop(ivan.ID, 0)
	if !closedWithin(gone) {
		t.Fatal("the allowed user's Stop did not end the model's request")
	}
	h.WaitDone(update)
	h.WaitDone(stop)
	if !storedStopped(h, ivan.ID) {
		t.Error("the stored answer is not marked stopped")
	}
}

// Someone who wrote before the claim (refused that day already) is not
// left out after it: their next message asks the owner and they are told.
func TestAStrangerWhoWroteBeforeTheClaimIsAskedAboutAfterIt(t *testing.T) {
	t.Parallel()
	h := newOwnedHarness(t)
	h.Start()
	code := h.WaitLog(claimLink)[1]
	if got := h.Say(dana, "hi, anyone there?"); !strings.Contains(got, "no owner yet") {
		t.Fatalf("before the claim dana got %q", got)
	}
	if got := h.Say(jane, "/start "+code); !strings.Contains(got, "owner now") {
		t.Fatalf("the claim answered %q", got)
	}
	if got := h.Say(dana, "hello again"); !strings.Contains(got, "asked my owner") {
		t.Fatalf("after the claim dana got %q", got)
	}
	lastWith(t, h, jane.ID, "Dana")
	// A second message while the request waits gets no second answer.
	before := len(h.TG.SentTo(dana.ID))
	h.WaitDone(h.TG.SendText(dana, "and again"))
	if sent := h.TG.SentTo(dana.ID); len(sent) != before {
		t.Errorf("a message while the request waits was answered: %q", sent[before:])
	}
}
