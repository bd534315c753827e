package memory

import (
	"context"
	"fmt"
)

// laterInAlbumSQL looks for an unfinished update of the chat after $2 that
// is part of album $3 (by the updates_unfinished index: a chat has few).
const laterInAlbumSQL = `SELECT EXISTS (SELECT 1 FROM updates
	WHERE chat_id = $1 AND update_id > $2 AND state <> 'done' AND payload->'message'->>'media_group_id' = $3)`

// LaterInAlbum tells whether the chat has an unfinished update after
// updateID that belongs to the same album (media group): the photos of an
// album arrive as separate updates, and the last one answers them all.
func (s *Store) LaterInAlbum(ctx context.Context, chatID, updateID int64, album string) (bool, error) {
	var later bool
	if err := s.pool.QueryRow(ctx, laterInAlbumSQL, chatID, updateID, album).Scan(&later); err != nil {
		return false, fmt.Errorf("later in album: %w", translate(err))
	}
	return later, nil
}

// toggleVoiceRepliesSQL turns a chat's spoken answers on when they were
// off (or never set), off when on.
const toggleVoiceRepliesSQL = `INSERT INTO chat_settings (chat_id, voice_replies) VALUES ($1, true)
ON CONFLICT (chat_id) DO UPDATE SET voice_replies = NOT chat_settings.voice_replies, updated_at = now()
RETURNING voice_replies`

// ToggleVoiceReplies switches a chat's spoken answers (/voice) and
// returns whether they are now on.
func (s *Store) ToggleVoiceReplies(ctx context.Context, chatID int64) (bool, error) {
	var on bool
	if err := s.pool.QueryRow(ctx, toggleVoiceRepliesSQL, chatID).Scan(&on); err != nil {
		return false, fmt.Errorf("toggle voice replies: %w", translate(err))
	}
	return on, nil
}

// voiceRepliesSQL is whether chat $1's answers are also spoken: an
// expression StartTurn reads with the turn's row, in the same statement.
const voiceRepliesSQL = `coalesce((SELECT voice_replies FROM chat_settings WHERE chat_id = $1), false)`
