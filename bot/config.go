package bot

import (
	"time"

	"github.com/membot/membot/bot/access"
	"github.com/membot/membot/bot/export"
	"github.com/membot/membot/bot/media"
	"github.com/membot/membot/bot/present"
)

// Config is the bot's settings: who may use it and how much, how answers
// are shown, and how what people send besides text is taken. DefaultConfig
// has the defaults; a zero field means the default too, except the
// switches (Streaming, ShowReasoning, Media's).
type Config struct {
	// Access is who may use the bot and how much (the zero value: its
	// owner and whom they allow).
	// Its admins may also decide any chat's approvals, and its Location is
	// the zone times are shown in.
	Access access.Policy
	// ShowReasoning shows the model's thinking under its answer, collapsed
	// (SHOW_REASONING=collapsed).
	ShowReasoning bool
	// Streaming shows answers while the model writes them (STREAMING), as
	// Present says.
	Streaming bool
	// Present is how answers are shown while they are written: the pace of
	// edits and drafts.
	Present present.Config
	// StopEvery is how often a running turn checks whether the user asked
	// to stop it (STOP_CHECK_INTERVAL; DefaultStopEvery when zero).
	StopEvery time.Duration
	// ExportPartBytes is the largest document /export sends
	// (EXPORT_PART_BYTES; export.DefaultPartBytes when zero).
	ExportPartBytes int64
	// ExportsPerHour bounds the exports a user gets in any hour
	// (EXPORTS_PER_HOUR; export.DefaultPerHour when zero).
	ExportsPerHour int
	// Media says how voice messages, photos and files are taken (bot/media).
	Media media.Config
}

// DefaultStopEvery is StopEvery's default, which zero means too.
const DefaultStopEvery = 500 * time.Millisecond

// DefaultConfig is the settings' defaults.
func DefaultConfig() Config {
	return Config{
		Access:          access.Policy{Access: string(access.Owner)},
		Streaming:       true,
		Present:         present.DefaultConfig(),
		StopEvery:       DefaultStopEvery,
		ExportPartBytes: export.DefaultPartBytes,
		ExportsPerHour:  export.DefaultPerHour,
		Media:           media.DefaultConfig(),
	}
}
