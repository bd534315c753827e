package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// The methods below came after the library (Bot API 5.x); they are called
// through its raw request path with parameters written from the Bot API
// documentation (core.telegram.org/bots/api):
//
//   - sendMessageDraft (9.3; every bot since 9.5): chat_id (a private
//     chat), draft_id (non-zero; drafts with the same id are animated into
//     each other), text (0-4096 characters after entities parsing; empty
//     shows a "Thinking…" placeholder), parse_mode, message_thread_id, and
//     since 10.3 can_stop (a Stop button; pressing it sends the bot a
//     stopped_message_generation update) and keep_on_stop. Returns True.
//     A draft is shown until the bot sends a message to the chat (or topic),
//     or for about 30 seconds.

// Draft names a streamed answer's draft: the parameters every state of it
// has.
type Draft struct {
	Chat    Chat  // and its topic
	DraftID int64 // non-zero
	CanStop bool  // show the Stop button
}

// SendMessageDraftParams are sendMessageDraft's parameters.
type SendMessageDraftParams struct {
	Draft
	Text      string // empty shows Telegram's "Thinking…" placeholder
	ParseMode string // "" (plain text) or ModeHTML
}

// UnsupportedError is a method the Bot API server does not know (an older
// self-hosted telegram-bot-api answers 404, some 400 "method not found").
// First is true for the first such answer of the run, so the caller logs
// it once.
type UnsupportedError struct {
	Method string
	First  bool
	err    error
}

func (e *UnsupportedError) Error() string {
	return e.Method + ": not supported by the Bot API server: " + e.err.Error()
}
func (e *UnsupportedError) Unwrap() error { return e.err }

// IsUnsupported reports whether err says the server does not know a method.
func IsUnsupported(err error) bool {
	var u *UnsupportedError
	return errors.As(err, &u)
}

// unsupported remembers the methods the server did not know: they are not
// tried again in this run.
type unsupported struct {
	mu      sync.Mutex
	methods map[string]bool
}

func (u *unsupported) has(method string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.methods[method]
}

// note returns err as an UnsupportedError when it is the server's answer
// to an unknown method.
func (u *unsupported) note(method string, err error) error {
	if !unknownMethod(err) {
		return err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.methods == nil {
		u.methods = map[string]bool{}
	}
	first := !u.methods[method]
	u.methods[method] = true
	return &UnsupportedError{Method: method, First: first, err: err}
}

// unknownMethod tells whether err is a server's answer to a method it does
// not know: a 404, or a 400 whose description says "method not found" (as
// some Bot API servers answer; any other 400 is about the call's
// parameters, and the method is kept).
func unknownMethod(err error) bool {
	apiErr, ok := APIError(err)
	switch {
	case !ok:
		return false
	case apiErr.Code == http.StatusNotFound:
		return true
	case apiErr.Code == http.StatusBadRequest:
		return strings.Contains(strings.ToLower(apiErr.Message), "method not found")
	}
	return false
}

// Supports reports whether the server has not yet refused method as unknown.
func (c *Client) Supports(method string) bool { return !c.unknown.has(method) }

// raw makes one call of a method the library does not know, with retries.
// An unknown method's answer (unknownMethod) becomes an UnsupportedError,
// and the method is not tried again in this run.
func (c *Client) raw(ctx context.Context, method string, params tgbotapi.Params) ([]byte, error) {
	if c.unknown.has(method) {
		return nil, &UnsupportedError{Method: method, err: errors.New("refused earlier")}
	}
	result, err := c.request(ctx, func() (*tgbotapi.APIResponse, error) { return c.api.MakeRequest(method, params) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, c.unknown.note(method, err))
	}
	return result, nil
}

// SendMessageDraft shows (or updates) a draft.
func (c *Client) SendMessageDraft(ctx context.Context, p SendMessageDraftParams) error {
	params := draftParams(p.Draft)
	params["text"] = p.Text
	if p.ParseMode != "" {
		params["parse_mode"] = p.ParseMode
	}
	_, err := c.raw(ctx, "sendMessageDraft", params)
	return err
}

// draftParams are the parameters every draft has: its chat, topic, id and
// Stop button.
func draftParams(d Draft) tgbotapi.Params {
	params := tgbotapi.Params{"chat_id": strconv.FormatInt(d.Chat.ID, 10), "draft_id": strconv.FormatInt(d.DraftID, 10)}
	if d.Chat.Thread != 0 {
		params["message_thread_id"] = strconv.FormatInt(d.Chat.Thread, 10)
	}
	if d.CanStop {
		params["can_stop"] = "true"
	}
	return params
}
