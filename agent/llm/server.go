package llm

import "time"

// Server is where an OpenAI-compatible server is: the chat model's
// (OPENAI_BASE_URL, OPENAI_API_KEY), and those of transcription, speech
// and embeddings, which default to it.
type Server struct {
	BaseURL string // e.g. https://api.openai.com/v1, without a trailing slash
	APIKey  string // sent as a bearer token when not empty; never logged
}

// DefaultBaseURL is OpenAI's API, OPENAI_BASE_URL's default.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultIdle is Limits.Idle's default (LLM_IDLE_TIMEOUT).
const DefaultIdle = 120 * time.Second
