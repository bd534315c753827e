package inbox

import "time"

// How updates arrive (Config.Mode).
const (
	// ModePolling: the bot asks Telegram for updates (Poller); nothing to expose.
	ModePolling = "polling"
	// ModeWebhook: Telegram posts them to the bot (Webhook), which lets
	// several replicas share the work.
	ModeWebhook = "webhook"
)

// Config is how updates arrive and how many chats are answered at once.
// DefaultConfig has the defaults.
type Config struct {
	Mode string // ModePolling or ModeWebhook (MODE)
	// WebhookURL is the public URL Telegram posts updates to (WEBHOOK_URL,
	// required in webhook mode); its path is the path the webhook serves.
	WebhookURL string
	// WebhookListen is where the webhook server listens (WEBHOOK_LISTEN).
	WebhookListen string
	// WebhookSecret is the secret_token Telegram sends with every update
	// (WEBHOOK_SECRET); empty: DefaultWebhookSecret of the bot token.
	WebhookSecret string
	// WebhookTLSCert and WebhookTLSKey make the webhook server serve HTTPS
	// itself (WEBHOOK_TLS_CERT, WEBHOOK_TLS_KEY); empty when a proxy in
	// front terminates TLS.
	WebhookTLSCert string
	WebhookTLSKey  string
	// Workers is how many chats are answered at once (WORKERS); one chat
	// is always answered in order.
	Workers int
	// BlockedAfter is how long a chat's update may be in hand before the
	// chat counts as blocked (CHAT_BLOCKED_AFTER, Stuck.After).
	BlockedAfter time.Duration
	// GiveUpAfterCrashes is how many runs may die with an update in hand,
	// or its handling panic, before it is given up with an apology
	// (GIVE_UP_AFTER_CRASHES, Dispatcher.GiveUpAfter).
	GiveUpAfterCrashes int
	// Sweep is how often the inbox is scanned for work nobody announced
	// (Dispatcher.Sweep). Not a setting of the environment: tests shorten it.
	Sweep time.Duration
}

// DefaultConfig is the settings' defaults.
func DefaultConfig() Config {
	return Config{Mode: ModePolling, WebhookListen: ":8443", Workers: 16, BlockedAfter: DefaultBlockedAfter,
		GiveUpAfterCrashes: DefaultGiveUpAfter, Sweep: DefaultSweep}
}

// DefaultSweep is how often the inbox is scanned by default.
const DefaultSweep = 5 * time.Second
