package gate

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

// Owner mode (access.Owner: no allowlist, ACCESS not "open"). Until the bot
// is claimed nobody is served: the first private-chat user who sends
// "/start <code>" (the claim link of the start-up log) becomes its owner.
// Then a stranger's first message of a day opens a request the owner and
// admins get with Allow / Deny / Block buttons, and the stranger is told
// that the owner was asked; a group the owner did not add is asked about
// the same way, and left on Deny. Nothing of what a stranger wrote is kept
// (the refusal blanks the stored update), and no model is called.

// admitByOwner is the gate of owner mode for a sender the settings do not
// let in: served when the owner allowed them (or the group), else refused
// (a blocked one without a word), with the claim, or a request to the owner.
func (g *Gate) admitByOwner(ctx context.Context, a Arrival) (stop bool, err error) {
	st, usage, err := g.stateOf(ctx, a)
	if err != nil {
		return true, err
	}
	switch verdict(st, a.userID(), a.Private) {
	case serve:
		return g.overLimit(ctx, a, usage)
	case silence:
		_, err := g.recordRefusal(ctx, a)
		return true, err
	}
	if st.Claimed || len(g.Policy.Admins) > 0 {
		return true, g.askOwner(ctx, a)
	}
	if code, ok := claimCode(a); ok {
		return true, g.claim(ctx, a, code) // claim.go
	}
	return true, g.refuse(ctx, a, func(context.Context) (string, error) { return texts.For(a.lang()).Unclaimed, nil })
}

// stateOf is what the owner decided on a's sender and chat and, when a
// limit counts their messages, what it counts, read together in one
// round trip (usage is nil when no limit counts). An owner seen is
// remembered as an admin.
func (g *Gate) stateOf(ctx context.Context, a Arrival) (memory.AccessState, *userdata.Usage, error) {
	userID := a.userID()
	if !g.limits(userID) {
		st, err := g.Store.AccessOf(ctx, userID, a.ChatID)
		g.Policy.Owners.Add(ownerIn(st, userID)...)
		return st, nil, err
	}
	now := g.Policy.Now()
	st, usage, err := g.Usage.AccessAndUsage(ctx, userID, a.ChatID, a.UpdateID, g.Policy.DayStart(now), now.Add(-time.Minute))
	g.Policy.Owners.Add(ownerIn(st, userID)...)
	return st, &usage, err
}

// Serves tells whether the bot serves userID in their private chat, and
// whether they are an admin or an owner, by the gate's rule (the owner's
// grants are read from the database): who may open the Mini App and sign
// in to the web pages.
func (g *Gate) Serves(ctx context.Context, userID int64) (serves, admin bool, err error) {
	serves, err = g.LetIn(ctx, userID, userID, true)
	return serves, serves && g.Policy.IsAdmin(userID), err
}

// LetIn tells whether the bot serves userID in chatID: the gate's rule,
// without its answers (a button press, a request to stop an answer).
func (g *Gate) LetIn(ctx context.Context, userID, chatID int64, private bool) (bool, error) {
	if g.Policy.Allows(userID, chatID) {
		return true, nil
	}
	if g.Policy.Mode() != access.Owner {
		return false, nil
	}
	st, err := g.Store.AccessOf(ctx, userID, chatID)
	if err != nil {
		return false, err
	}
	g.Policy.Owners.Add(ownerIn(st, userID)...)
	return verdict(st, userID, private) == serve, nil
}

// ownerIn is userID when the state says they are an owner.
func ownerIn(st memory.AccessState, userID int64) []int64 {
	if st.User == memory.AccessOwner {
		return []int64{userID}
	}
	return nil
}

// What owner mode does with a sender the settings do not let in.
type pairingVerdict int

const (
	ask     pairingVerdict = iota // refused: the owner is asked (or the bot claimed)
	serve                         // served
	silence                       // refused without a word: blocked
)

// verdict is owner mode's rule: an owner is served anywhere; a blocked
// user (or group) is refused without a word; in a private chat an allowed
// user is served, in a group everyone is once the group is allowed.
func verdict(st memory.AccessState, userID int64, private bool) pairingVerdict {
	switch {
	case st.User == memory.AccessOwner:
		return serve
	case st.User == memory.AccessBlocked || (!private && st.Group == memory.AccessBlocked):
		return silence
	case private && st.User == memory.AccessAllowed, !private && st.Group == memory.AccessAllowed:
		return serve
	}
	return ask
}

// askOwner refuses a stranger's update and asks the owner about them. A
// stranger refused earlier today (before the claim, or while too many
// requests waited) is asked about all the same; they are answered when
// the day's first refusal is theirs or a request was opened now, so a
// flood of messages gets one answer.
func (g *Gate) askOwner(ctx context.Context, a Arrival) error {
	first, err := g.recordRefusal(ctx, a)
	if err != nil {
		return err
	}
	text, opened, err := g.ask(ctx, a)
	if err != nil || text == "" || !(first || opened) {
		return err
	}
	return a.Reply(ctx, text)
}

// ask opens a request for the sender (in a group: for the group), tells
// the owner and admins, and returns what the sender is told.
func (g *Gate) ask(ctx context.Context, a Arrival) (text string, opened bool, err error) {
	t := texts.For(a.lang())
	u := a.User
	// Only who asks is kept, each name bounded as Telegram bounds it.
	req := memory.AccessRequest{Kind: memory.KindUser, TelegramID: u.TelegramUserID, ChatID: a.ChatID, UserID: u.TelegramUserID,
		FirstName: texts.Label(u.FirstName, 64), LastName: texts.Label(u.LastName, 64), Username: texts.Label(u.Username, 32),
		LanguageCode: texts.Label(u.LanguageCode, 16)}
	if !a.Private {
		req.Kind, req.TelegramID, req.ChatTitle = memory.KindGroup, a.ChatID, texts.Label(a.ChatTitle, 128)
	}
	req, outcome, err := g.Store.AskAccess(ctx, req, access.MaxPending, access.RequestLifetime)
	if err != nil {
		return "", false, err
	}
	switch outcome {
	case memory.AskWaiting:
		return t.PairingWaiting, false, nil
	case memory.AskDenied:
		return t.PairingDeniedYou, false, nil
	case memory.AskFull:
		g.Log.Warn("a stranger's request was not opened: too many wait for the owner (/users)", "user_id", u.TelegramUserID, "chat_id", a.ChatID)
		return t.PairingFull, false, nil
	}
	g.Log.Info("access requested: the owner is asked", "request", req.ID, "kind", req.Kind, "user_id", u.TelegramUserID, "chat_id", a.ChatID)
	g.tellDeciders(ctx, req)
	if req.Kind == memory.KindGroup {
		return t.PairingAskedGroup, true, nil
	}
	return t.PairingAsked, true, nil
}

// tellDeciders sends a request to the owners and admins, each in their
// language. A failed send is logged: the request waits in /users anyway.
func (g *Gate) tellDeciders(ctx context.Context, req memory.AccessRequest) {
	var admins []int64
	for id := range g.Policy.Admins {
		admins = append(admins, id)
	}
	deciders, err := g.Store.AccessDeciders(ctx, admins)
	if err != nil {
		g.Log.Warn("telling the owner of a request failed; it waits in /users", "request", req.ID, "err", err)
		return
	}
	for _, d := range deciders {
		t := texts.For(d.LanguageCode)
		if err := g.Telegram.Send(ctx, telegram.Chat{ID: d.UserID}, requestText(t, req), requestButtons(t, req, true)); err != nil {
			g.Log.Warn("telling the owner of a request failed; it waits in /users", "request", req.ID, "owner", d.UserID, "err", err)
		}
	}
}

// requestText is how a request shows to its decider: who asks, where.
func requestText(t *texts.Texts, r memory.AccessRequest) string {
	who := texts.Author(strings.TrimSpace(r.FirstName+" "+r.LastName), r.Username, r.UserID)
	language := texts.Label(r.LanguageCode, 16)
	if language == "" {
		language = "-"
	}
	if r.Kind == memory.KindGroup {
		return t.PairingGroupRequest(texts.Label(r.ChatTitle, 128), r.TelegramID, who, language)
	}
	return t.PairingRequest(who, r.UserID, language, t.PairingPrivateChat)
}

// requestButtons are a request's Allow / Deny (/ Block, for a user), with
// long labels or, in /users, short ones after the asker's name.
func requestButtons(t *texts.Texts, r memory.AccessRequest, long bool) []telegram.Button {
	data := func(verb string) string { return PairPrefix + ":" + verb + ":" + strconv.FormatInt(r.ID, 10) }
	label := func(s string) string {
		if long {
			return s
		}
		icon, _, _ := strings.Cut(s, " ")
		return icon
	}
	allow := t.PairingAllow
	if !long {
		allow = label(allow) + " " + texts.Label(r.FirstName+r.ChatTitle, 24)
	}
	row := []telegram.Button{{Text: allow, Data: data("allow")}, {Text: label(t.PairingDeny), Data: data("deny")}}
	if r.Kind == memory.KindUser {
		row = append(row, telegram.Button{Text: label(t.PairingBlock), Data: data("block")})
	}
	return row
}

// TellAsker tells whoever asked what the owner decided (a blocked one is
// told nothing), and leaves a denied group. Failures are logged: the
// decision stands.
func (g *Gate) TellAsker(ctx context.Context, req memory.AccessRequest, status string) {
	t := texts.For(req.LanguageCode)
	group := req.Kind == memory.KindGroup
	var text string
	switch {
	case status == memory.AccessAllowed && group:
		text = t.PairingAllowedGroup
	case status == memory.AccessAllowed:
		text = t.PairingAllowedYou
	case status == memory.AccessDenied && group:
		text = t.PairingDeniedGroup
	case status == memory.AccessDenied:
		text = t.PairingDeniedYou
	}
	if text != "" {
		if err := g.Telegram.Send(ctx, telegram.Chat{ID: req.ChatID}, text); err != nil {
			g.Log.Warn("telling the asker of the owner's decision failed", "request", req.ID, "chat_id", req.ChatID, "err", err)
		}
	}
	if group && status != memory.AccessAllowed {
		if err := g.Telegram.LeaveChat(ctx, req.ChatID); err != nil {
			g.Log.Warn("leaving a group the owner did not allow failed", "chat_id", req.ChatID, "err", err)
		}
	}
}

// joined handles the bot's being added to a group or leaving it, in
// owner mode: added by the owner or an admin, the group is allowed; by
// anyone else, the owner is asked (the gate's refusal). Removed, the group
// is forgotten, so that a later add is decided anew.
func (g *Gate) joined(ctx context.Context, a Arrival) error {
	if g.Policy.Mode() != access.Owner {
		return nil
	}
	gone := func(status string) bool { return status == "left" || status == "kicked" }
	switch {
	case gone(a.New):
		_, err := g.Store.RevokeAccess(ctx, memory.KindGroup, a.ChatID)
		return err
	case !gone(a.Old):
		return nil // a change of rights, not an add
	}
	stop, err := g.admit(ctx, a)
	if stop || err != nil {
		return err
	}
	if !g.Policy.IsAdmin(a.userID()) {
		return nil // the group is allowed already
	}
	g.Log.Info("the owner added the bot to a group: it is allowed", "chat_id", a.ChatID, "by", a.userID())
	_, err = g.Store.SetAccess(ctx, memory.KindGroup, a.ChatID, memory.AccessAllowed, a.userID())
	return err
}
