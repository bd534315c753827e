package memory

import (
	"context"
	"fmt"
)

// StopRequested reports whether the user asked to stop the answer to
// updateID, whose draft (if any) is draftID. The bot asks it every few
// hundred milliseconds while a turn runs: the request is an update queued
// behind the turn, perhaps stored by another process (webhook replicas),
// and the database is what every process sees.
func (s *Store) StopRequested(ctx context.Context, chatID, updateID, draftID int64) (bool, error) {
	var yes bool
	if err := s.pool.QueryRow(ctx, stopRequestedSQL, chatID, updateID, draftID).Scan(&yes); err != nil {
		return false, fmt.Errorf("stop requested: %w", translate(err))
	}
	return yes, nil
}

// The statements of this file, whole in sql/stops.sql.
var (
	stopRequestedSQL = statement("stopRequested")
)
