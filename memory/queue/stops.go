package queue

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/membot/membot/memory/pg"
)

// MaxStopRequests bounds the requests StopRequests returns at once.
const MaxStopRequests = 20

// StopRequest is a request to stop a running answer, queued behind it.
type StopRequest struct {
	UpdateID int64
	UserID   int64 // who asked
}

// StopRequests returns the requests to stop the answer to updateID, whose
// draft (if any) is draftID, that came after update after (updateID at
// first), oldest first, at most MaxStopRequests. The bot asks every few
// hundred milliseconds while a turn runs and decides whether each may stop
// the answer: a request is an update queued behind the turn, perhaps
// stored by another process (webhook replicas), and the database is what
// every process sees.
func (s *Store) StopRequests(ctx context.Context, chatID, updateID, draftID, after int64) ([]StopRequest, error) {
	rows, err := s.pool.Query(ctx, stopRequestsSQL, pg.Named(stopRequestsParams{
		ChatID: chatID, UpdateID: updateID, DraftID: draftID, After: after, Max: MaxStopRequests,
	}))
	if err != nil {
		return nil, fmt.Errorf("stop requests: %w", translate(err))
	}
	list, err := pgx.CollectRows(rows, pgx.RowToStructByPos[StopRequest])
	if err != nil {
		return nil, fmt.Errorf("stop requests: %w", translate(err))
	}
	return list, nil
}

// stopRequestsParams are the arguments of stopRequests.
type stopRequestsParams struct {
	ChatID   int64 `db:"chat_id"`
	UpdateID int64 `db:"update_id"`
	DraftID  int64 `db:"draft_id"`
	After    int64 `db:"after_update_id"`
	Max      int   `db:"max_requests"`
}

// The statements of this file, whole in sql/stops.sql.
var (
	stopRequestsSQL = statement("stopRequests")
)
