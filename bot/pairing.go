package bot

import (
	"context"
	"strconv"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/present"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/queue"
)

// Owner mode (access.Owner: no allowlist, ACCESS not "open"). Until the bot
// is claimed nobody is served: the first private-chat user who sends
// "/start <code>" (the claim link of the start-up log) becomes its owner.
// Then a stranger's first message of a day opens a request the owner and
// admins get with Allow / Deny / Block buttons, and the stranger is told
// that the owner was asked; a group the owner did not add is asked about
// the same way, and left on Deny. Nothing of what a stranger wrote is kept
// (the gate's refusal blanks the stored update), and no model is called.

// admitByOwner is the gate of owner mode for a sender the settings do not
// let in: served when the owner allowed them (or the group), else refused
// (a blocked one without a word), with the claim, or a request to the owner.
func (h *Handler) admitByOwner(ctx context.Context, in *incoming) (stop bool, err error) {
	st, err := h.Stores.Access.AccessOf(ctx, in.user.TelegramUserID, in.msg.Chat.ID)
	if err != nil {
		return true, err
	}
	switch verdict(st, in.user.TelegramUserID, in.msg.Chat.IsPrivate()) {
	case serve:
		h.Access.Owners.Add(ownerIn(st, in.user.TelegramUserID)...)
		return h.overLimit(ctx, in)
	case silence:
		_, err := h.recordRefusal(ctx, in)
		return true, err
	}
	if st.Claimed || len(h.Access.Admins) > 0 {
		return true, h.askOwner(ctx, in)
	}
	if code, ok := claimCode(in); ok {
		return true, h.claim(ctx, in, code)
	}
	return true, h.refuse(ctx, in, func(context.Context) (string, error) { return tr(in.lang()).Unclaimed, nil })
}

// Serves tells whether the bot serves userID in their private chat, and
// whether they are an admin or an owner, by the gate's rule (the owner's
// grants are read from the database): who may open the Mini App and sign
// in to the web pages.
func (h *Handler) Serves(ctx context.Context, userID int64) (serves, admin bool, err error) {
	serves, err = h.letIn(ctx, userID, &tgbotapi.Chat{ID: userID, Type: "private"})
	return serves, serves && h.Access.IsAdmin(userID), err
}

// letIn tells whether the bot serves userID in chat: the gate's rule,
// without its answers (a button press, a request to stop an answer).
func (h *Handler) letIn(ctx context.Context, userID int64, chat *tgbotapi.Chat) (bool, error) {
	if h.Access.Allows(userID, chat.ID) {
		return true, nil
	}
	if h.Access.Mode() != access.Owner {
		return false, nil
	}
	st, err := h.Stores.Access.AccessOf(ctx, userID, chat.ID)
	if err != nil {
		return false, err
	}
	h.Access.Owners.Add(ownerIn(st, userID)...)
	return verdict(st, userID, chat.IsPrivate()) == serve, nil
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

// claimCode is the code of "/start <code>" in a private chat.
func claimCode(in *incoming) (string, bool) {
	if !in.msg.Chat.IsPrivate() || in.route.action != runCommand || in.route.command != "start" {
		return "", false
	}
	code := strings.TrimSpace(in.msg.CommandArguments())
	return code, code != ""
}

// claim makes the sender the owner when code is the claim code. A wrong
// code is answered (while the sender has tries left this hour) and kept
// nowhere: the update is refused like a stranger's.
func (h *Handler) claim(ctx context.Context, in *incoming, code string) error {
	userID := in.user.TelegramUserID
	outcome, left, err := h.Stores.Access.ClaimOwner(ctx, userID, in.update.UpdateID,
		func(live string) bool { return access.SameCode(code, live) }, access.WrongCodesPerHour)
	if err != nil {
		return err
	}
	t := tr(in.lang())
	switch outcome {
	case memory.ClaimOwned:
		h.Access.Owners.Add(userID)
		h.Log.Warn("the bot is claimed: its owner is this user", "user_id", userID, "username", in.user.Username)
		arrived := memory.Event{Type: memory.EventMessageReceived, UserID: userID, ChatID: in.msg.Chat.ID,
			UpdateID: in.update.UpdateID, Payload: map[string]any{"kind": "command", "command": "start"}}
		if err := h.Stores.Access.Arrived(ctx, in.user, arrived); err != nil {
			return err
		}
		return h.reply(ctx, in, t.ClaimDone(texts.Author(in.user.FirstName, in.user.Username, userID)))
	case memory.ClaimTaken: // claimed by someone else a moment ago
		return h.askOwner(ctx, in)
	}
	if _, err := h.recordRefusal(ctx, in); err != nil {
		return err
	}
	h.Log.Warn("a wrong or expired claim code was sent", "user_id", userID, "tries_left", left)
	switch outcome {
	case memory.ClaimWrong:
		if left == 0 {
			return h.reply(ctx, in, t.ClaimWrongLast)
		}
		return h.reply(ctx, in, t.ClaimWrong(left))
	case memory.ClaimExpired:
		st, err := ClaimStatus(ctx, &h.Access, h.Stores.Access, h.Client.Self.UserName) // a new code, in the log
		if err != nil {
			return err
		}
		st.Log(h.Log)
		return h.reply(ctx, in, t.ClaimExpired)
	}
	return nil // too many wrong codes this hour: the last one said so
}

// ask opens a request for the sender (in a group: for the group), tells
// the owner and admins, and returns what the sender is told.
// askOwner refuses a stranger's update and asks the owner about them. A
// stranger refused earlier today (before the claim, or while too many
// requests waited) is asked about all the same; they are answered when
// the day's first refusal is theirs or a request was opened now, so a
// flood of messages gets one answer.
func (h *Handler) askOwner(ctx context.Context, in *incoming) error {
	first, err := h.recordRefusal(ctx, in)
	if err != nil {
		return err
	}
	text, opened, err := h.ask(ctx, in)
	if err != nil || text == "" || !(first || opened) {
		return err
	}
	return h.reply(ctx, in, text)
}

func (h *Handler) ask(ctx context.Context, in *incoming) (text string, opened bool, err error) {
	t := tr(in.lang())
	u, chat := in.user, in.msg.Chat
	// Only who asks is kept, each name bounded as Telegram bounds it.
	req := memory.AccessRequest{Kind: memory.KindUser, TelegramID: u.TelegramUserID, ChatID: chat.ID, UserID: u.TelegramUserID,
		FirstName: texts.Label(u.FirstName, 64), LastName: texts.Label(u.LastName, 64), Username: texts.Label(u.Username, 32),
		LanguageCode: texts.Label(u.LanguageCode, 16)}
	if !chat.IsPrivate() {
		req.Kind, req.TelegramID, req.ChatTitle = memory.KindGroup, chat.ID, texts.Label(chat.Title, 128)
	}
	req, outcome, err := h.Stores.Access.AskAccess(ctx, req, access.MaxPending, access.RequestLifetime)
	if err != nil {
		return "", false, err
	}
	switch outcome {
	case memory.AskWaiting:
		return t.PairingWaiting, false, nil
	case memory.AskDenied:
		return t.PairingDeniedYou, false, nil
	case memory.AskFull:
		h.Log.Warn("a stranger's request was not opened: too many wait for the owner (/users)", "user_id", u.TelegramUserID, "chat_id", chat.ID)
		return t.PairingFull, false, nil
	}
	h.Log.Info("access requested: the owner is asked", "request", req.ID, "kind", req.Kind, "user_id", u.TelegramUserID, "chat_id", chat.ID)
	h.tellDeciders(ctx, req)
	if req.Kind == memory.KindGroup {
		return t.PairingAskedGroup, true, nil
	}
	return t.PairingAsked, true, nil
}

// tellDeciders sends a request to the owners and admins, each in their
// language. A failed send is logged: the request waits in /users anyway.
func (h *Handler) tellDeciders(ctx context.Context, req memory.AccessRequest) {
	var admins []int64
	for id := range h.Access.Admins {
		admins = append(admins, id)
	}
	deciders, err := h.Stores.Access.AccessDeciders(ctx, admins)
	if err != nil {
		h.Log.Warn("telling the owner of a request failed; it waits in /users", "request", req.ID, "err", err)
		return
	}
	for _, d := range deciders {
		t := tr(d.LanguageCode)
		to := present.To{Chat: telegram.Chat{ID: d.UserID}}
		if _, err := h.presenter().Text(ctx, to, requestText(t, req), requestButtons(t, req, true)); err != nil {
			h.Log.Warn("telling the owner of a request failed; it waits in /users", "request", req.ID, "owner", d.UserID, "err", err)
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
	data := func(verb string) string { return "pair:" + verb + ":" + strconv.FormatInt(r.ID, 10) }
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

// pairingStatus is the status a verb of the buttons and of /users sets.
var pairingStatus = map[string]string{"allow": memory.AccessAllowed, "deny": memory.AccessDenied, "block": memory.AccessBlocked}

// pressPair decides a request by its button ("allow:ID", "deny:ID",
// "block:ID"): only the owner and admins may. The decider's message then
// says what was decided, the asker is told (a denied group is left).
func pressPair(ctx context.Context, h *Handler, in *incoming, arg string) (*queue.Delivery, error) {
	t := tr(in.lang())
	verb, idText, _ := strings.Cut(arg, ":")
	status, known := pairingStatus[verb]
	id, err := strconv.ParseInt(idText, 10, 64)
	if !known || err != nil {
		h.notify(ctx, in, "")
		return nil, nil
	}
	by := in.user.TelegramUserID
	if !h.Access.IsAdmin(by) {
		h.notify(ctx, in, t.PairingOwnersOnly)
		return nil, nil
	}
	req, ok, err := h.Stores.Access.DecideAccess(ctx, id, status, by)
	if err != nil {
		return nil, err
	}
	if !ok {
		h.notify(ctx, in, t.PairingGone)
		return nil, nil
	}
	h.notify(ctx, in, "")
	h.Log.Info("access request decided", "request", req.ID, "kind", req.Kind, "id", req.TelegramID, "status", status, "by", by)
	outcome := map[string]func(any) string{memory.AccessAllowed: t.PairingAllowedAt, memory.AccessDenied: t.PairingDeniedAt,
		memory.AccessBlocked: t.PairingBlockedAt}[status](h.clock(time.Now()))
	if err := h.Client.EditMessageText(ctx, telegram.EditMessageTextParams{ChatID: in.msg.Chat.ID, MessageID: int64(in.msg.MessageID),
		Text: requestText(tr(in.lang()), req) + "\n\n" + outcome}); err != nil {
		h.Log.Warn("showing a decided request failed", "request", req.ID, "err", err)
	}
	h.TellAsker(ctx, req, status)
	return nil, nil
}

// TellAsker tells whoever asked what the owner decided (a blocked one is
// told nothing), and leaves a denied group. Failures are logged: the
// decision stands.
func (h *Handler) TellAsker(ctx context.Context, req memory.AccessRequest, status string) {
	t := tr(req.LanguageCode)
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
		if _, err := h.presenter().Text(ctx, present.To{Chat: telegram.Chat{ID: req.ChatID}}, text); err != nil {
			h.Log.Warn("telling the asker of the owner's decision failed", "request", req.ID, "chat_id", req.ChatID, "err", err)
		}
	}
	if group && status != memory.AccessAllowed {
		if err := h.Client.LeaveChat(ctx, req.ChatID); err != nil {
			h.Log.Warn("leaving a group the owner did not allow failed", "chat_id", req.ChatID, "err", err)
		}
	}
}

// membership handles the bot's being added to a group or leaving it, in
// owner mode: added by the owner or an admin, the group is allowed; by
// anyone else, the owner is asked (the gate's refusal). Removed, the group
// is forgotten, so that a later add is decided anew.
func (h *Handler) membership(ctx context.Context, in *incoming) error {
	if h.Access.Mode() != access.Owner {
		return nil
	}
	m := in.decoded.MyChatMember
	gone := func(status string) bool { return status == "left" || status == "kicked" }
	switch {
	case gone(m.NewChatMember.Status):
		_, err := h.Stores.Access.RevokeAccess(ctx, memory.KindGroup, m.Chat.ID)
		return err
	case !gone(m.OldChatMember.Status):
		return nil // a change of rights, not an add
	}
	stop, err := h.admit(ctx, in)
	if stop || err != nil {
		return err
	}
	if !h.Access.IsAdmin(in.user.TelegramUserID) {
		return nil // the group is allowed already
	}
	h.Log.Info("the owner added the bot to a group: it is allowed", "chat_id", m.Chat.ID, "by", in.user.TelegramUserID)
	_, err = h.Stores.Access.SetAccess(ctx, memory.KindGroup, m.Chat.ID, memory.AccessAllowed, in.user.TelegramUserID)
	return err
}

// How many of each /users lists.
const (
	usersListed   = 50
	revokeButtons = 10
)

// cmdUsers lists who may use the bot and the requests waiting, with
// buttons to decide and revoke; "/users allow|block|revoke ID" decides
// directly (a group's id is negative).
func cmdUsers(ctx context.Context, h *Handler, in *incoming) error {
	t := tr(in.lang())
	args := strings.Fields(strings.ToLower(in.msg.CommandArguments()))
	switch len(args) {
	case 0:
		return h.listUsers(ctx, in)
	case 2:
		if id, err := strconv.ParseInt(args[1], 10, 64); err == nil && id != 0 {
			return h.reply(ctx, in, h.setUser(ctx, in, args[0], id))
		}
	}
	return h.reply(ctx, in, t.UsersUsage)
}

// setUser does "/users VERB ID" and says what came of it.
func (h *Handler) setUser(ctx context.Context, in *incoming, verb string, id int64) string {
	t := tr(in.lang())
	kind := memory.KindUser
	if id < 0 {
		kind = memory.KindGroup
	}
	var changed bool
	var err error
	switch verb {
	case "allow", "block":
		changed, err = h.Stores.Access.SetAccess(ctx, kind, id, pairingStatus[verb], in.user.TelegramUserID)
	case "revoke":
		changed, err = h.Stores.Access.RevokeAccess(ctx, kind, id)
	default:
		return t.UsersUsage
	}
	switch {
	case err != nil:
		h.Log.Error("/users failed", "verb", verb, "id", id, "err", err)
		return tr(in.lang()).Apology
	case !changed && h.Access.Owners.Has(id):
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
func (h *Handler) listUsers(ctx context.Context, in *incoming) error {
	t := tr(in.lang())
	grants, err := h.Stores.Access.AccessGrants(ctx, usersListed)
	if err != nil {
		return err
	}
	pending, err := h.Stores.Access.PendingRequests(ctx, access.MaxPending)
	if err != nil {
		return err
	}
	var sections [5][]string // as t.UsersHeads
	for id := range h.Access.Admins {
		sections[0] = append(sections[0], "id "+strconv.FormatInt(id, 10))
	}
	var buttons [][]telegram.Button
	for _, g := range grants {
		line := texts.Author(g.FirstName, g.Username, g.TelegramID)
		if g.Kind == memory.KindGroup {
			line = texts.Label(g.ChatTitle, 64) + " (" + strconv.FormatInt(g.TelegramID, 10) + ")"
		}
		switch {
		case g.Status == memory.AccessOwner:
			sections[0] = append(sections[0], line)
		case g.Kind == memory.KindGroup:
			sections[3] = append(sections[3], line+": "+g.Status)
		case g.Status == memory.AccessAllowed:
			sections[1] = append(sections[1], line)
		default:
			sections[2] = append(sections[2], line)
		}
		if g.Status == memory.AccessAllowed && len(buttons) < revokeButtons {
			buttons = append(buttons, []telegram.Button{{Text: t.UsersRevoke(texts.Label(g.FirstName+g.ChatTitle, 24)),
				Data: "users:revoke:" + strconv.FormatInt(g.TelegramID, 10)}})
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
	return h.reply(ctx, in, b.String(), buttons...)
}

// pressUsers is a button of /users ("revoke:ID"): only the owner and
// admins may press it.
func pressUsers(ctx context.Context, h *Handler, in *incoming, arg string) (*queue.Delivery, error) {
	verb, idText, _ := strings.Cut(arg, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	switch {
	case verb != "revoke" || err != nil:
		h.notify(ctx, in, "")
	case !h.Access.IsAdmin(in.user.TelegramUserID):
		h.notify(ctx, in, tr(in.lang()).PairingOwnersOnly)
	default:
		h.notify(ctx, in, h.setUser(ctx, in, verb, id))
	}
	return nil, nil
}
