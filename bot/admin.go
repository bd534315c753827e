package bot

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/membot/membot/bot/texts"
	"github.com/membot/membot/memory"
)

// cmdStats: users, who was active today, messages and tokens today.
func cmdStats(ctx context.Context, h *Handler, in *incoming) error {
	a := &h.Access
	st, err := h.Stores.Usage.Stats(ctx, a.DayStart(a.Now()))
	if err != nil {
		return err
	}
	return h.reply(ctx, in, tr(in.lang()).Stats(a.Zone(), st.Users, st.ActiveToday, st.MessagesToday, st.StoredMessages, st.TokensToday, st.ModelCallsToday, st.LLMErrorsToday, st.ToolCallsToday, st.RefusedToday, st.InboxUnfinished, st.InboxFailed))
}

// usernamePattern is what Telegram allows in a username.
var usernamePattern = regexp.MustCompile(`^[A-Za-z0-9_]{4,32}$`)

// cmdUser: a summary of one user, by Telegram id or @username.
func cmdUser(ctx context.Context, h *Handler, in *incoming) error {
	arg := strings.TrimSpace(in.msg.CommandArguments())
	id, err := strconv.ParseInt(arg, 10, 64)
	if name := strings.TrimPrefix(arg, "@"); err != nil && usernamePattern.MatchString(name) {
		id, err = h.Stores.Usage.UserByUsername(ctx, name)
		if errors.Is(err, memory.ErrNotFound) {
			return h.reply(ctx, in, tr(in.lang()).UserUnknown("@"+name))
		}
		if err != nil {
			return err
		}
	}
	if err != nil || id <= 0 {
		return h.reply(ctx, in, tr(in.lang()).UserUsage)
	}
	a := &h.Access
	now := a.Now()
	st, err := h.Stores.Usage.UserStats(ctx, id, a.DayStart(now), a.MonthStart(now))
	if err != nil {
		return err
	}
	if !st.Known && st.ModelCalls == 0 && st.Refusals == 0 {
		return h.reply(ctx, in, tr(in.lang()).UserUnknown(id))
	}
	return h.reply(ctx, in, tr(in.lang()).User(id, texts.UserName(st.User.Username, st.User.FirstName, st.User.LastName), h.localTime(st.FirstSeen, st.Known), h.localTime(st.LastSeen, st.Known), st.Conversations, st.StoredMessages, st.MessagesToday, st.TokensToday, st.MessagesMonth, st.TokensMonth, st.TokensTotal, st.ModelCalls, st.Refusals))
}

func (h *Handler) localTime(t time.Time, known bool) string {
	if !known {
		return "—"
	}
	return h.clock(t)
}
