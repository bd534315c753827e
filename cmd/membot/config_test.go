package main

import (
	"maps"
	"testing"
)

func TestIDListsAcceptCommasAndSpaces(t *testing.T) {
	env := map[string]string{"ENV_FILE": "/dev/null", "TELEGRAM_BOT_TOKEN": "1:a", "DATABASE_URL": "postgres://x@localhost/db",
		"ALLOWED_USER_IDS": " 101, 102 ;103 ", "ALLOWED_CHAT_IDS": "-1001234567890", "ADMIN_USER_IDS": "101"}
	cfg, err := loadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int64]bool{101: true, 102: true, 103: true}; !maps.Equal(cfg.AllowedUserIDs, want) {
		t.Errorf("ALLOWED_USER_IDS = %v", cfg.AllowedUserIDs)
	}
	if !cfg.AllowedChatIDs[-1001234567890] || !cfg.AdminUserIDs[101] || cfg.Mode != "polling" || cfg.MetricsAddr != "" {
		t.Errorf("config = %+v", cfg)
	}
}
