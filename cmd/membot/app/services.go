package app

import (
	"github.com/membot/membot/internal/netcause"
)

// The services the bot calls, as netcause names them and the settings
// that say where they are: the start-up waits and `membot doctor` say a
// failure the same way.
var (
	TelegramService = netcause.Service{Name: "the Bot API server", URLSetting: "TELEGRAM_API_URL", KeySetting: "TELEGRAM_BOT_TOKEN", Key: "token"}
	DatabaseService = netcause.Service{Name: "PostgreSQL", URLSetting: "DATABASE_URL"}
)

// ModelService is the model server of a setting: OPENAI_BASE_URL, or
// TRANSCRIPTION_BASE_URL and the like, with its key's setting.
func ModelService(urlSetting, keySetting string) netcause.Service {
	return netcause.Service{Name: "the model server", URLSetting: urlSetting, KeySetting: keySetting}
}
