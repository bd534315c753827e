package web

import (
	"context"
	"net/http"

	"github.com/membot/membot/memory/console"
)

// WaitStore is what the bot waits on, as its page reads and cancels it:
// approvals not decided, reminders and tasks due; the Mini App cancels a
// user's own reminders (memory/console.Store).
type WaitStore interface {
	PendingApprovals(ctx context.Context) ([]console.Approval, error)
	WaitingReminders(ctx context.Context) ([]console.Waiting, error)
	CancelReminder(ctx context.Context, id, userID int64) (chatID int64, err error)
	CancelApproval(ctx context.Context, id int64) (chatID int64, err error)
}

func (s *Server) waits(w http.ResponseWriter, r *http.Request, v viewer) error {
	ctx := r.Context()
	approvals, err := s.deps.Waits.PendingApprovals(ctx)
	if err != nil {
		return err
	}
	reminders, err := s.deps.Waits.WaitingReminders(ctx)
	if err != nil {
		return err
	}
	return s.render(w, r, v, "waits", "Waiting", map[string]any{"approvals": approvals, "reminders": reminders})
}

func (s *Server) cancelWait(w http.ResponseWriter, r *http.Request, v viewer) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	chatID, err := s.deps.Waits.CancelReminder(r.Context(), id, 0)
	if err != nil {
		return err
	}
	s.changed(r, v, 0, "cancel_reminder", map[string]any{"reminder_id": id, "chat_id": chatID})
	return s.back(w, r, "/waits", map[string]any{"cancelled": id})
}

func (s *Server) cancelApproval(w http.ResponseWriter, r *http.Request, v viewer) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	chatID, err := s.deps.Waits.CancelApproval(r.Context(), id)
	if err != nil {
		return err
	}
	s.changed(r, v, 0, "cancel_approval", map[string]any{"approval_id": id, "chat_id": chatID})
	return s.back(w, r, "/waits", map[string]any{"cancelled": id})
}
