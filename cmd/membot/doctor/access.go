package doctor

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/gate"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/memory"
)

// access says whom the bot serves: the allowlist's size, an open bot, or,
// in owner mode, whether it was claimed and, until it is, the claim link
// (read from the database, as the start-up log shows it).
func (d *doctor) access(ctx context.Context) []Line {
	policy := &d.cfg.Bot.Access
	switch policy.Mode() {
	case access.Open:
		return []Line{unset("access", "open (ACCESS=open): anyone who finds the bot uses it on your tokens")}
	case access.Allowlist:
		return []Line{Access(d.cfg)}
	}
	if len(policy.Admins) > 0 {
		return []Line{ok("access", "owner mode: the %d admins (ADMIN_USER_IDS) are its owners; strangers ask them (/users)", len(policy.Admins))}
	}
	dsn, stop, err := app.Database(ctx, d.cfg.Database, d.log)
	if err != nil {
		return []Line{unset("access", "owner mode; whether it was claimed is in the database, which did not answer (see the database line)")}
	}
	defer stop()
	callCtx, cancel := d.call(ctx)
	defer cancel()
	store, err := memory.Open(callCtx, dsn, 2)
	if err != nil {
		return []Line{unset("access", "owner mode; whether it was claimed is in the database, which did not answer (see the database line)")}
	}
	defer store.Close()
	username := "your_bot"
	tc := d.cfg.Telegram
	tc.Retry, tc.RequestTimeout = telegram.SendRetry{Attempts: 1}, d.timeout
	if me, err := telegram.NewClient(ctx, ctx, tc).Me(callCtx); err == nil {
		username = me.UserName
	}
	st, err := gate.ClaimStatus(callCtx, policy, store.Access(), username)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "42P01": // undefined_table: not migrated yet
		return []Line{unset("access", "owner mode; the claim link is made once the migrations have run (membot migrate, or the bot's first start); then run membot doctor again")}
	case err != nil:
		return []Line{failed("access", "owner mode; the claim could not be read: "+err.Error(), "run membot migrate, then membot doctor again")}
	case st.Claimed:
		return []Line{ok("access", "owner mode: claimed; a stranger's first message asks the owner (/users)")}
	}
	return []Line{unset("access", "owner mode, not claimed yet: the bot answers no one until you open %s in Telegram "+
		"(or send it /start %s); ACCESS=open serves anyone", st.Link, st.Code)}
}

// Access says who the bot serves by an allowlist, from the settings.
func Access(cfg *app.Config) Line {
	policy := cfg.Bot.Access
	users, chats, admins := len(policy.AllowedUsers), len(policy.AllowedChats), len(policy.Admins)
	return ok("access", "allowlist: %d %s, %d %s; %d %s", users, plural(users, "user", "users"),
		chats, plural(chats, "chat", "chats"), admins, plural(admins, "admin", "admins"))
}
