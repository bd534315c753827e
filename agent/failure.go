package agent

import (
	"errors"
	"net/http"

	"github.com/membot/membot/agent/llm"
)

// Misconfigured tells whether a turn failed because the model server
// refuses the bot's settings — the key (401, 403) or the model or URL
// (404) — which no retry cures: someone must change a setting. It returns
// the server's status.
func Misconfigured(err error) (status int, ok bool) {
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) {
		return 0, false
	}
	switch apiErr.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return apiErr.Status, true
	}
	return 0, false
}
