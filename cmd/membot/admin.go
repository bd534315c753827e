package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/memory"
	"github.com/membot/membot/memory/userdata"
)

const adminUsage = `usage:
  membot admin stats                             totals: users, activity, tokens, the inbox
  membot admin history --user ID [--limit N]     the user's newest N messages (50), oldest first;
                                                 with a group's id (-100…), the group's
  membot admin export --user ID > user.json      every row of the user, as JSON
  membot admin forget --user ID                  deletes every row of the user, in every table

Only DATABASE_URL (and TIMEZONE, for local times) need to be set.
`

// admin runs `membot admin ...`: inspection and the right to be forgotten.
func admin(ctx context.Context, getenv app.Getenv, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, adminUsage)
		return app.NewConfigError("admin: say which command (stats, history, export or forget)")
	}
	sub := args[0]
	if isHelp(sub) {
		fmt.Fprint(stdout, adminUsage)
		return nil
	}
	needsUser := sub == "history" || sub == "export" || sub == "forget"
	if sub != "stats" && !needsUser {
		fmt.Fprint(stderr, adminUsage)
		return app.NewConfigError(fmt.Sprintf("unknown admin command %q", sub))
	}
	// Each command has its own flags: --user for those about a user,
	// --limit for history alone.
	flags := flag.NewFlagSet("membot admin "+sub, flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {} // -h prints usage below; an error names the flag
	user, limit := new(int64), new(int)
	*limit = 50
	switch sub {
	case "history":
		flags.Int64Var(user, "user", 0, "the user's Telegram id, or a group's chat id (-100…)")
		flags.IntVar(limit, "limit", 50, "how many of the newest messages")
	case "export", "forget":
		flags.Int64Var(user, "user", 0, "the user's Telegram id")
	}
	if err := flags.Parse(args[1:]); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, adminUsage) // asked for: usage on stdout, exit 0
		fmt.Fprintf(stdout, "\nflags of membot admin %s:", sub)
		if needsUser {
			fmt.Fprintln(stdout)
			flags.SetOutput(stdout)
			flags.PrintDefaults()
		} else {
			fmt.Fprintln(stdout, " none")
		}
		return nil
	} else if err != nil {
		return app.NewConfigError(fmt.Sprintf("admin %s: %v", sub, err))
	}
	switch {
	case sub == "history" && *user == 0:
		return app.NewConfigError("admin history: --user ID is required (a user's Telegram id, or a group's chat id such as -1001234567890)")
	case needsUser && sub != "history" && *user <= 0:
		return app.NewConfigError(fmt.Sprintf("admin %s: --user ID is required (the user's Telegram id)", sub))
	case *limit <= 0:
		return app.NewConfigError(fmt.Sprintf("admin %s: --limit must be positive", sub))
	}

	cfg, err := loadAdminConfig(getenv)
	if err != nil {
		return err
	}
	dsn, stopDatabase, err := database(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer stopDatabase()
	store, err := memory.Open(ctx, dsn, 2)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer store.Close()
	users := userdata.New(store.Pool())
	switch sub {
	case "stats":
		return adminStats(ctx, users, cfg.Location, stdout)
	case "history":
		return adminHistory(ctx, users, cfg.Location, *user, *limit, stdout)
	case "export":
		return adminExport(ctx, users, *user, stdout)
	default:
		return adminForget(ctx, users, *user, stdout)
	}
}

func adminStats(ctx context.Context, users *userdata.Store, loc *time.Location, w io.Writer) error {
	now := time.Now().In(loc)
	y, m, d := now.Date()
	st, err := users.Stats(ctx, time.Date(y, m, d, 0, 0, 0, 0, loc))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "membot at %s (%s); \"today\" began at midnight there\n\n", now.Format("2006-01-02 15:04"), loc)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, row := range []struct {
		name  string
		value any
	}{
		{"users", st.Users}, {"active today", st.ActiveToday}, {"messages today", st.MessagesToday},
		{"messages stored", st.StoredMessages}, {"tokens today", st.TokensToday},
		{"model calls today", st.ModelCallsToday}, {"model errors today", st.LLMErrorsToday},
		{"tool calls today", st.ToolCallsToday}, {"refused today", st.RefusedToday},
		{"inbox waiting", st.InboxUnfinished}, {"inbox given up", st.InboxFailed},
	} {
		fmt.Fprintf(tw, "%s\t%v\n", row.name, row.value)
	}
	return tw.Flush()
}

func adminHistory(ctx context.Context, users *userdata.Store, loc *time.Location, user int64, limit int, w io.Writer) error {
	history, whose := users.History, "user"
	if user < 0 { // a group's chat id
		history, whose = users.ChatHistory, "chat"
	}
	entries, err := history(ctx, user, limit)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		fmt.Fprintf(w, "no stored messages of %s %d\n", whose, user)
		return nil
	}
	for _, e := range entries {
		who := string(e.Role)
		if e.ToolName != "" {
			who += "(" + e.ToolName + ")"
		}
		content := strings.ReplaceAll(e.Content, "\n", "\n    ")
		fmt.Fprintf(w, "%s  chat %d  %s: %s\n", e.At.In(loc).Format("2006-01-02 15:04:05"), e.ChatID, who, content)
	}
	return nil
}

func adminExport(ctx context.Context, users *userdata.Store, user int64, w io.Writer) error {
	tables, err := users.Export(ctx, user)
	if err != nil {
		return err
	}
	out, err := json.MarshalIndent(map[string]any{
		"telegram_user_id": user,
		"exported_at":      time.Now().UTC().Format(time.RFC3339),
		"tables":           tables,
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode export: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}

func adminForget(ctx context.Context, users *userdata.Store, user int64, w io.Writer) error {
	deleted, err := users.Forget(ctx, user)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(deleted))
	var total int64
	for name, n := range deleted {
		names = append(names, name)
		total += n
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range names {
		fmt.Fprintf(tw, "%s\t%d rows deleted\n", name, deleted[name])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if total == 0 {
		fmt.Fprintf(w, "nothing of user %d was stored\n", user)
		return nil
	}
	fmt.Fprintf(w, "user %d is forgotten: %d rows deleted\n", user, total)
	return nil
}
