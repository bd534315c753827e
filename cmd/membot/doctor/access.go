package doctor

import (
	"github.com/membot/membot/cmd/membot/app"
)

// Access says who the bot serves, from the settings. (An owner's claim,
// kept in the database, is another state of the same line: it goes here.)
func Access(cfg *app.Config) Line {
	policy := cfg.Bot.Access
	users, chats, admins := len(policy.AllowedUsers), len(policy.AllowedChats), len(policy.Admins)
	if users == 0 && chats == 0 {
		return unset("access", "no allowlist: anyone who finds the bot may use it (ALLOWED_USER_IDS, ALLOWED_CHAT_IDS choose who may)")
	}
	return ok("access", "allowlist: %d %s, %d %s; %d %s", users, plural(users, "user", "users"),
		chats, plural(chats, "chat", "chats"), admins, plural(admins, "admin", "admins"))
}
