package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// Approval states.
const (
	ApprovalPending   = "pending"
	ApprovalApproved  = "approved"
	ApprovalRejected  = "rejected"
	ApprovalCancelled = "cancelled"
)

// Approval is a row of pending_approvals: a tool call that waits for (or
// got) a person's decision.
type Approval struct {
	ID                 int64      `db:"id"`
	RequestID          string     `db:"request_id"` // the tool call id
	Subject            string     `db:"subject"`    // the tool's name
	Details            string     `db:"details"`    // the call's arguments, canonical JSON: shown and run as they are
	ConversationID     string     `db:"conversation_id"`
	AssistantMessageID int64      `db:"assistant_message_id"`
	UserID             int64      `db:"telegram_user_id"`
	ChatID             int64      `db:"chat_id"`
	UpdateID           int64      `db:"update_id"`
	TelegramMessageID  int64      `db:"telegram_message_id"`
	Status             string     `db:"status"`
	CreatedAt          time.Time  `db:"created_at"`
	DecisionAt         *time.Time `db:"decision_at"`
	DecidedBy          int64      `db:"decided_by"`
	DecisionUpdateID   int64      `db:"decision_update_id"`
	DecisionReason     string     `db:"decision_reason"`
	// Pin is what a call of an MCP server's tool is pinned to (JSON, the
	// pin column): stored by PauseForApproval, read by ApprovalPin.
	Pin string `db:"-"`
}

// Approvals keeps the tool calls that wait for a yes as the bot's buttons
// and /approvals decide them; a turn pauses for them and reads their pins
// through Store (PauseForApproval, ApprovalPin). It is safe for
// concurrent use.
type Approvals struct{ base }

func collectApprovals(rows pgx.Rows, err error) ([]Approval, error) {
	if err != nil {
		return nil, translate(err)
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByName[Approval])
	return list, translate(err)
}

func collectApproval(rows pgx.Rows, err error) (*Approval, error) {
	if err != nil {
		return nil, translate(err)
	}
	a, err := pgx.CollectExactlyOneRow(rows, pgx.RowToAddrOfStructByName[Approval])
	return a, translate(err)
}

// PauseForApproval stores, in one round trip and transaction, a step whose
// assistant row calls tools (st.Messages[0], followed by the results of the
// calls that already ran) and one pending_approvals row for each call in
// requests (RequestID, Subject, Details, UserID, ChatID and UpdateID set),
// with their approval_requested events. It returns the stored approvals.
func (s *Store) PauseForApproval(ctx context.Context, conversationID string, st Step, requests []Approval) ([]Approval, error) {
	batch := &pgx.Batch{}
	s.queueStep(batch, conversationID, st)
	stored := make([]Approval, len(requests))
	for i, r := range requests {
		// Without the secrets, as the assistant row keeps the call: what is
		// shown is what runs.
		arguments := s.storable(r.Details)
		details, err := cleanJSON([]byte(arguments))
		if err != nil {
			return nil, fmt.Errorf("pause for approval: %w", err)
		}
		batch.Queue(requestApprovalSQL, pg.Named(requestApprovalParams{
			RequestID: r.RequestID, Subject: r.Subject, Details: json.RawMessage(details), Arguments: arguments,
			ConversationID: conversationID, UserID: r.UserID, ChatID: r.ChatID, UpdateID: r.UpdateID,
		})).Query(func(rows pgx.Rows) error {
			a, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[Approval])
			stored[i] = a
			return err
		})
		if r.Pin != "" {
			batch.Queue(setApprovalPinSQL, r.RequestID, conversationID, json.RawMessage(r.Pin))
		}
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return nil, fmt.Errorf("pause for approval: %w", translate(err))
	}
	return stored, nil
}

// requestApprovalParams are the arguments of requestApproval: Arguments
// is the call's exact text, Details their jsonb copy.
type requestApprovalParams struct {
	RequestID      string          `db:"request_id"`
	Subject        string          `db:"subject"`
	Details        json.RawMessage `db:"details"`
	Arguments      string          `db:"arguments"`
	ConversationID string          `db:"conversation_id"`
	UserID         int64           `db:"telegram_user_id"`
	ChatID         int64           `db:"chat_id"`
	UpdateID       int64           `db:"update_id"`
}

// Approval returns one approval by id.
func (s Approvals) Approval(ctx context.Context, id int64) (*Approval, error) {
	a, err := collectApproval(s.pool.Query(ctx, approvalByIDSQL, id))
	if err != nil {
		return nil, fmt.Errorf("approval: %w", err)
	}
	return a, nil
}

// ApprovalPin returns the pin stored with an approval, "" when it has none.
func (s *Store) ApprovalPin(ctx context.Context, id int64) (string, error) {
	var pin string
	if err := s.pool.QueryRow(ctx, approvalPinSQL, id).Scan(&pin); err != nil {
		return "", fmt.Errorf("approval pin: %w", translate(err))
	}
	return pin, nil
}

// Decision is what a person decided about an approval.
type Decision struct {
	ApprovalID int64
	Status     string // ApprovalApproved, ApprovalRejected or ApprovalCancelled
	DecidedBy  int64  // the Telegram user
	UpdateID   int64  // the update that carried the decision
	Reason     string
}

// decideApprovalParams are the arguments of decideApproval.
type decideApprovalParams struct {
	ID        int64  `db:"id"`
	Status    string `db:"status"`
	DecidedBy int64  `db:"decided_by"`
	UpdateID  int64  `db:"decision_update_id"`
	Reason    string `db:"decision_reason"`
}

// Decide records a decision on a pending approval. decided is false when
// the approval was no longer pending (decided before, or cancelled); the
// row is returned as it is either way.
func (s Approvals) Decide(ctx context.Context, d Decision) (a *Approval, decided bool, err error) {
	a, err = collectApproval(s.pool.Query(ctx, decideApprovalSQL, pg.Named(decideApprovalParams{
		ID: d.ApprovalID, Status: d.Status, DecidedBy: d.DecidedBy, UpdateID: d.UpdateID, Reason: d.Reason,
	})))
	if errors.Is(err, ErrNotFound) {
		a, err = s.Approval(ctx, d.ApprovalID)
		return a, false, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("decide approval: %w", err)
	}
	return a, true, nil
}

// SetApprovalMessage records the Telegram message that shows the buttons.
func (s Approvals) SetApprovalMessage(ctx context.Context, id, telegramMessageID int64) error {
	if _, err := s.pool.Exec(ctx, setApprovalMessageSQL, id, telegramMessageID); err != nil {
		return fmt.Errorf("set approval message: %w", translate(err))
	}
	return nil
}

// ChatApprovals returns the chat's pending approvals (in a topic: the
// topic's), oldest first.
func (s Approvals) ChatApprovals(ctx context.Context, chat Chat) ([]Approval, error) {
	list, err := collectApprovals(s.pool.Query(ctx, chatApprovalsSQL, chat.ID, chat.Thread))
	if err != nil {
		return nil, fmt.Errorf("chat approvals: %w", err)
	}
	return list, nil
}

// CancelApprovals cancels the chat's pending approvals and returns them.
func (s Approvals) CancelApprovals(ctx context.Context, chat Chat, reason string) ([]Approval, error) {
	list, err := collectApprovals(s.pool.Query(ctx, cancelApprovalsSQL, chat.ID, reason, chat.Thread))
	if err != nil {
		return nil, fmt.Errorf("cancel approvals: %w", err)
	}
	return list, nil
}

// queueApprovals adds to batch sql, a query of approvals, scanned into *dst.
func queueApprovals(batch *pgx.Batch, dst *[]Approval, sql string, args ...any) {
	batch.Queue(sql, args...).
		Query(func(rows pgx.Rows) error {
			var err error
			*dst, err = pgx.CollectRows(rows, pgx.RowToStructByName[Approval])
			return err
		})
}

// The statements of this file, whole in sql/approvals.sql.
var (
	requestApprovalSQL    = statement("requestApproval")
	turnApprovalsSQL      = statement("turnApprovals")
	resumeApprovalsSQL    = statement("resumeApprovals")
	approvalByIDSQL       = statement("approvalByID")
	decideApprovalSQL     = statement("decideApproval")
	setApprovalMessageSQL = statement("setApprovalMessage")
	chatApprovalsSQL      = statement("chatApprovals")
	cancelApprovalsSQL    = statement("cancelApprovals")
	setApprovalPinSQL     = statement("setApprovalPin")
	approvalPinSQL        = statement("approvalPin")
)
