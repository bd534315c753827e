package agent

import (
	"errors"
	"fmt"
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

// refusedFor tells whether the model server refused a request for good
// for what it holds — the user's message or an image it cannot read (400,
// 413, 422) — rather than for the bot's settings (Misconfigured) or for a
// while (429, 5xx), and says why. Such a user row is left out of later
// requests, which would otherwise carry it, and fail, until /new.
func refusedFor(err error) (reason string, ok bool) {
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.InStream {
		return "", false
	}
	switch apiErr.Status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return fmt.Sprintf("%d: %s", apiErr.Status, Truncate(apiErr.Message, 300)), true
	}
	return "", false
}
