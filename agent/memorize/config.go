package memorize

import "time"

// Config is the settings of the memory work that follows turns
// (Memorizer). DefaultConfig has the defaults.
type Config struct {
	// AutoMemory extracts lasting facts about the user from private
	// exchanges (AUTO_MEMORY).
	AutoMemory bool
	// Summaries summarises the rows that leave the window (SUMMARIES).
	Summaries bool
	// Model extracts the facts and writes the summaries (MEMORY_MODEL).
	Model string
	// CallsPerMinute bounds the facts and summary calls
	// (MEMORY_CALLS_PER_MINUTE), EmbedPerMinute the embeddings requests,
	// each of up to embedBatch messages (EMBEDDINGS_PER_MINUTE).
	CallsPerMinute int
	EmbedPerMinute int
	// EmbeddingsModel is the model of the Embedder that makes recall
	// semantic too (EMBEDDINGS_MODEL); empty: full-text search alone.
	EmbeddingsModel string
	// HistoryLimit is the turns' window (HISTORY_LIMIT): rows older than
	// it are summarised.
	HistoryLimit int
	// Location is the zone of the dates the model is shown (TIMEZONE);
	// UTC when nil.
	Location *time.Location
	// Settle is how old a row must be before it is worked on (see
	// memory/jobs/sql/jobs.sql); Every is how often the database is looked
	// at when nobody wakes the work. Not settings of the environment: tests
	// shorten them.
	Settle time.Duration
	Every  time.Duration
}

// DefaultConfig is the settings' defaults; Model is empty, for the
// caller to default to the chat model.
func DefaultConfig() Config {
	return Config{AutoMemory: true, Summaries: true, CallsPerMinute: defaultPerMinute, EmbedPerMinute: defaultPerMinute,
		Settle: DefaultSettle, Every: DefaultEvery}
}

// The memory work's timers by default: a turn's rows commit within
// milliseconds of their ids being handed out; an idle look every 10 s
// finds the work of another process.
const (
	DefaultSettle = 2 * time.Second
	DefaultEvery  = 10 * time.Second
)

// defaultPerMinute bounds each kind of the memory work's calls, and is
// what a zero bound means too.
const defaultPerMinute = 30
