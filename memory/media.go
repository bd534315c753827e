package memory

import (
	"context"
	"fmt"
)

// ToggleVoiceReplies switches a chat's spoken answers (/voice) and
// returns whether they are now on.
func (s Choices) ToggleVoiceReplies(ctx context.Context, chatID int64) (bool, error) {
	var on bool
	if err := s.pool.QueryRow(ctx, toggleVoiceRepliesSQL, chatID).Scan(&on); err != nil {
		return false, fmt.Errorf("toggle voice replies: %w", translate(err))
	}
	return on, nil
}

// The statements of this file, whole in sql/media.sql.
var (
	toggleVoiceRepliesSQL = statement("toggleVoiceReplies")
	chatVoiceRepliesSQL   = statement("chatVoiceReplies")
)
