package doctor

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/membot/membot/bot/inbox"
	"github.com/membot/membot/bot/telegram"
	"github.com/membot/membot/cmd/membot/app"
	"github.com/membot/membot/internal/netcause"
	"github.com/membot/membot/internal/redact"
)

// telegram checks the token (getMe) and where Telegram delivers the
// bot's updates (getWebhookInfo) against MODE.
func (d *doctor) telegram(ctx context.Context) []Line {
	tc := d.cfg.Telegram
	tc.Retry = telegram.SendRetry{Attempts: 1}
	tc.RequestTimeout = d.timeout
	client := telegram.NewClient(ctx, ctx, tc)
	callCtx, cancel := d.call(ctx)
	defer cancel()
	me, err := client.Me(callCtx)
	if err != nil {
		cause := netcause.Explain(err, app.TelegramService)
		if cause.Kind == netcause.Unauthorized {
			cause.Fix = "check TELEGRAM_BOT_TOKEN: copy it again from @BotFather"
		}
		return []Line{because("telegram", cause)}
	}
	lines := []Line{ok("telegram", "the token is @%s's (id %d), at %s", me.UserName, me.ID, redact.URL(tc.APIURL))}
	info, err := client.WebhookInfo(callCtx)
	if err != nil {
		return append(lines, because("telegram intake", netcause.Explain(err, app.TelegramService)))
	}
	return append(lines, d.intake(info))
}

// intake compares the webhook Telegram knows with MODE and WEBHOOK_URL.
func (d *doctor) intake(info telegram.WebhookInfo) Line {
	intake := d.cfg.Intake
	set := hostOf(info.URL)
	if intake.Mode == inbox.ModePolling {
		if info.URL != "" {
			return failed("telegram intake", fmt.Sprintf("MODE=polling, but a webhook is set (to %s): another deployment of this bot may be taking its updates", set),
				"stop the other deployment, or set MODE=webhook with its WEBHOOK_URL; the bot deletes the webhook when it starts polling")
		}
		return ok("telegram intake", "polling (no webhook set), %d updates waiting", info.PendingUpdateCount)
	}
	want := hostOf(intake.WebhookURL)
	switch {
	case info.URL == "":
		return ok("telegram intake", "MODE=webhook: no webhook set yet; the bot sets WEBHOOK_URL (%s) when it starts", want)
	case info.URL != intake.WebhookURL:
		return failed("telegram intake", fmt.Sprintf("Telegram posts the updates to %s, not to WEBHOOK_URL (%s): another deployment set it", set, want),
			"stop the other deployment; the bot sets WEBHOOK_URL again when it starts")
	case info.LastErrorMessage != "":
		when := time.Unix(info.LastErrorDate, 0).UTC().Format("2006-01-02 15:04 UTC")
		return failed("telegram intake", fmt.Sprintf("Telegram's last post to %s failed at %s: %s", set, when, info.LastErrorMessage),
			"make WEBHOOK_URL reach this host: WEBHOOK_LISTEN, the proxy in front, its TLS certificate")
	}
	return ok("telegram intake", "webhook at %s, %d updates waiting", set, info.PendingUpdateCount)
}

// hostOf is a URL's scheme and host, without its path (which may hold
// a secret) and its user.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "?"
	}
	return u.Scheme + "://" + u.Host
}
