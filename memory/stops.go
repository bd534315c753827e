package memory

import (
	"context"
	"fmt"
)

// stopRequestedSQL finds a request to stop the answer to update $2 among the
// chat's unfinished updates after it (an index range of updates_unfinished):
//   - Telegram's stopped_message_generation for the answer's draft ($3);
//   - /stop, or a press of a Stop button (callback data "stop"), that
//     arrived after the update was claimed: an older one was meant for an
//     earlier answer.
const stopRequestedSQL = `SELECT EXISTS (
  SELECT 1 FROM updates s
  WHERE s.chat_id = $1 AND s.update_id > $2 AND s.state <> 'done'
    AND ((s.payload #>> '{stopped_message_generation,draft_id}') = ($3::bigint)::text
      OR ((s.payload #>> '{message,text}' ~* '^/stop(@[a-z0-9_]+)?(\s|$)'
           OR s.payload #>> '{callback_query,data}' = 'stop')
          AND s.received_at >= (SELECT claimed_at FROM updates WHERE update_id = $2))))`

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
