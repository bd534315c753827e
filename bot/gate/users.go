package gate

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/command"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// The callback-data prefixes of the gate's buttons: a request's Allow /
// Deny / Block (Pair) and /users' Revoke (Users).
const (
	PairPrefix  = "pair"
	UsersPrefix = "users"
)

// How many of each /users lists.
const (
	usersListed   = 50
	revokeButtons = 10
)

// pairingStatus is the status a verb of the buttons and of /users sets.
var pairingStatus = map[string]string{"allow": memory.AccessAllowed, "deny": memory.AccessDenied, "block": memory.AccessBlocked}

// Users answers /users (the owner's and admins': bot routes it so): it
// lists who may use the bot and the requests waiting, with buttons to
// decide and revoke; "/users allow|block|revoke ID" decides directly (a
// group's id is negative).
func (g *Gate) Users(ctx context.Context, c command.Call) error {
	args := strings.Fields(strings.ToLower(c.Args))
	switch len(args) {
	case 0:
		return g.listUsers(ctx, c)
	case 2:
		if id, err := strconv.ParseInt(args[1], 10, 64); err == nil && id != 0 {
			return c.Reply(ctx, g.setUser(ctx, c, args[0], id))
		}
	}
	return c.Reply(ctx, texts.For(c.Lang()).UsersUsage)
}

// setUser does "/users VERB ID" and says what came of it.
func (g *Gate) setUser(ctx context.Context, c command.Call, verb string, id int64) string {
	t := texts.For(c.Lang())
	kind := memory.KindUser
	if id < 0 {
		kind = memory.KindGroup
	}
	var changed bool
	var err error
	switch verb {
	case "allow", "block":
		changed, err = g.Store.SetAccess(ctx, kind, id, pairingStatus[verb], c.UserID())
	case "revoke":
		changed, err = g.Store.RevokeAccess(ctx, kind, id)
	default:
		return t.UsersUsage
	}
	switch {
	case err != nil:
		g.Log.Error("/users failed", "verb", verb, "id", id, "err", err)
		return t.Apology
	case !changed && g.Policy.Owners.Has(id):
		return t.UsersOwnerStays
	case !changed:
		return t.UsersNothing(id)
	case verb == "allow":
		return t.UsersAllowedNow(id)
	case verb == "block":
		return t.UsersBlockedNow(id)
	}
	return t.UsersRevoked(id)
}

// listUsers shows the owners and admins, the allowed, the blocked, the
// groups and the requests waiting, with buttons to decide and revoke.
func (g *Gate) listUsers(ctx context.Context, c command.Call) error {
	t := texts.For(c.Lang())
	grants, err := g.Store.AccessGrants(ctx, usersListed)
	if err != nil {
		return err
	}
	pending, err := g.Store.PendingRequests(ctx, access.MaxPending)
	if err != nil {
		return err
	}
	var sections [5][]string // as t.UsersHeads
	for id := range g.Policy.Admins {
		sections[0] = append(sections[0], "id "+strconv.FormatInt(id, 10))
	}
	var buttons [][]telegram.Button
	for _, gr := range grants {
		line := texts.Author(gr.FirstName, gr.Username, gr.TelegramID)
		if gr.Kind == memory.KindGroup {
			line = texts.Label(gr.ChatTitle, 64) + " (" + strconv.FormatInt(gr.TelegramID, 10) + ")"
		}
		switch {
		case gr.Status == memory.AccessOwner:
			sections[0] = append(sections[0], line)
		case gr.Kind == memory.KindGroup:
			sections[3] = append(sections[3], line+": "+gr.Status)
		case gr.Status == memory.AccessAllowed:
			sections[1] = append(sections[1], line)
		default:
			sections[2] = append(sections[2], line)
		}
		if gr.Status == memory.AccessAllowed && len(buttons) < revokeButtons {
			buttons = append(buttons, []telegram.Button{{Text: t.UsersRevoke(texts.Label(gr.FirstName+gr.ChatTitle, 24)),
				Data: UsersPrefix + ":revoke:" + strconv.FormatInt(gr.TelegramID, 10)}})
		}
	}
	for _, r := range pending {
		sections[4] = append(sections[4], strings.ReplaceAll(requestText(t, r), "\n", "; "))
		buttons = append(buttons, requestButtons(t, r, false))
	}
	var b strings.Builder
	for i, lines := range sections {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(t.UsersHeads[i] + ":")
		if len(lines) == 0 {
			lines = []string{t.UsersNobody}
		}
		for _, l := range lines {
			b.WriteString("\n• " + l)
		}
	}
	b.WriteString("\n\n" + t.UsersUsage)
	return c.Reply(ctx, b.String(), buttons...)
}

// PressUsers is a button of /users ("revoke:ID"): only the owner and
// admins may press it.
func (g *Gate) PressUsers(ctx context.Context, c command.Call) error {
	verb, idText, _ := strings.Cut(c.Args, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	switch {
	case verb != "revoke" || err != nil:
		c.Notify(ctx, "")
	case !g.Policy.IsAdmin(c.UserID()):
		c.Notify(ctx, texts.For(c.Lang()).PairingOwnersOnly)
	default:
		c.Notify(ctx, g.setUser(ctx, c, verb, id))
	}
	return nil
}

// PressPair decides a request by its button ("allow:ID", "deny:ID",
// "block:ID"): only the owner and admins may. The decider's message then
// says what was decided, the asker is told (a denied group is left).
func (g *Gate) PressPair(ctx context.Context, c command.Call) error {
	t := texts.For(c.Lang())
	verb, idText, _ := strings.Cut(c.Args, ":")
	status, known := pairingStatus[verb]
	id, err := strconv.ParseInt(idText, 10, 64)
	if !known || err != nil {
		c.Notify(ctx, "")
		return nil
	}
	by := c.UserID()
	if !g.Policy.IsAdmin(by) {
		c.Notify(ctx, t.PairingOwnersOnly)
		return nil
	}
	req, ok, err := g.Store.DecideAccess(ctx, id, status, by)
	if err != nil {
		return err
	}
	if !ok {
		c.Notify(ctx, t.PairingGone)
		return nil
	}
	c.Notify(ctx, "")
	g.Log.Info("access request decided", "request", req.ID, "kind", req.Kind, "id", req.TelegramID, "status", status, "by", by)
	outcome := map[string]func(any) string{memory.AccessAllowed: t.PairingAllowedAt, memory.AccessDenied: t.PairingDeniedAt,
		memory.AccessBlocked: t.PairingBlockedAt}[status](texts.Clock(time.Now(), g.Policy.Zone()))
	if err := g.Telegram.EditMessageText(ctx, telegram.EditMessageTextParams{ChatID: c.Chat.ID, MessageID: c.MessageID,
		Text: requestText(t, req) + "\n\n" + outcome}); err != nil {
		g.Log.Warn("showing a decided request failed", "request", req.ID, "err", err)
	}
	g.TellAsker(ctx, req, status)
	return nil
}
