package web

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/membot/membot/memory"
)

// AccessStore is who may use the bot as the database keeps it, and the
// owner's decisions on it (memory.Access): the page decides with the same
// calls as the owner's buttons and /users.
type AccessStore interface {
	AccessGrants(ctx context.Context, limit int) ([]memory.AccessGrant, error)
	PendingRequests(ctx context.Context, limit int) ([]memory.AccessRequest, error)
	DecideAccess(ctx context.Context, id int64, status string, by int64) (memory.AccessRequest, bool, error)
	SetAccess(ctx context.Context, kind string, telegramID int64, status string, by int64) (bool, error)
	RevokeAccess(ctx context.Context, kind string, telegramID int64) (bool, error)
}

// AccessRules is what the settings say of who may use the bot
// (bot/access.Policy).
type AccessRules struct {
	// Mode is "owner" (the owner and whom they allow), "allowlist"
	// (ALLOWED_USER_IDS, ALLOWED_CHAT_IDS) or "open" (everyone).
	Mode         string  `json:"mode"`
	Admins       []int64 `json:"admins"`
	AllowedUsers []int64 `json:"allowed_users"`
	AllowedChats []int64 `json:"allowed_chats"`
}

// accessListed bounds each list of the access page.
const accessListed = 200

// accessPage is what the access page shows.
type accessPage struct {
	Rules    AccessRules            `json:"rules"`
	Owners   []memory.AccessGrant   `json:"owners"`
	Grants   []memory.AccessGrant   `json:"grants"` // the allowed and the blocked
	Requests []memory.AccessRequest `json:"requests"`
}

func (s *Server) accessPage(w http.ResponseWriter, r *http.Request, v viewer) error {
	if s.deps.Access == nil || s.deps.Rules == nil {
		return errNotFound
	}
	ctx := r.Context()
	p := accessPage{Rules: s.deps.Rules()}
	grants, err := s.deps.Access.AccessGrants(ctx, accessListed)
	if err != nil {
		return err
	}
	for _, g := range grants {
		if g.Status == memory.AccessOwner {
			p.Owners = append(p.Owners, g)
		} else {
			p.Grants = append(p.Grants, g)
		}
	}
	if p.Requests, err = s.deps.Access.PendingRequests(ctx, accessListed); err != nil {
		return err
	}
	return s.render(w, r, v, "access", "Access", p)
}

// requestVerbs are the statuses the buttons of a request set, as the
// owner's buttons in Telegram do.
var requestVerbs = map[string]string{"allow": memory.AccessAllowed, "deny": memory.AccessDenied, "block": memory.AccessBlocked}

// decideRequest decides a pending request as its buttons in Telegram do:
// the same call, and the asker is told the same way (Deps.Decided).
func (s *Server) decideRequest(w http.ResponseWriter, r *http.Request, v viewer) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	status, ok := requestVerbs[r.PathValue("verb")]
	if !ok || s.deps.Access == nil {
		return errNotFound
	}
	req, ok, err := s.deps.Access.DecideAccess(r.Context(), id, status, v.UserID)
	if err != nil {
		return err
	}
	if !ok {
		s.fail(w, r, http.StatusConflict, "This request is not waiting any more: it was decided already, or it expired.")
		return nil
	}
	s.changed(r, v, req.UserID, "decide_access_request", map[string]any{"request_id": req.ID, "kind": req.Kind,
		"telegram_id": req.TelegramID, "status": status})
	if s.deps.Decided != nil { // the decision stands: telling of it outlives a browser gone
		s.deps.Decided(context.WithoutCancel(r.Context()), req, status)
	}
	return s.back(w, r, "/access", map[string]any{"request_id": req.ID, "status": status})
}

// grantVerbs are what /users allow|block|revoke ID do, by their word.
var grantVerbs = map[string]string{"allow": memory.AccessAllowed, "block": memory.AccessBlocked, "revoke": ""}

// setGrant does what "/users allow|block|revoke ID" does (the form's
// verb and id; a group's id is negative).
func (s *Server) setGrant(w http.ResponseWriter, r *http.Request, v viewer) error {
	verb := r.PostFormValue("verb")
	status, ok := grantVerbs[verb]
	if !ok || s.deps.Access == nil {
		s.fail(w, r, http.StatusBadRequest, "Allow, block or revoke: nothing else.")
		return nil
	}
	telegramID, err := strconv.ParseInt(strings.TrimSpace(r.PostFormValue("id")), 10, 64)
	if err != nil || telegramID == 0 {
		s.fail(w, r, http.StatusBadRequest, "A Telegram id is a whole number (a group's is negative).")
		return nil
	}
	kind := memory.KindUser
	if telegramID < 0 {
		kind = memory.KindGroup
	}
	var changed bool
	if verb == "revoke" {
		changed, err = s.deps.Access.RevokeAccess(r.Context(), kind, telegramID)
	} else {
		changed, err = s.deps.Access.SetAccess(r.Context(), kind, telegramID, status, v.UserID)
	}
	if err != nil {
		return err
	}
	if !changed {
		s.fail(w, r, http.StatusConflict, "Nothing changed: the owner stays the owner, and there was nothing to revoke.")
		return nil
	}
	var userID int64
	if kind == memory.KindUser {
		userID = telegramID
	}
	s.changed(r, v, userID, verb+"_access", map[string]any{"kind": kind, "telegram_id": telegramID})
	return s.back(w, r, "/access", map[string]any{"telegram_id": telegramID, "done": verb})
}
