package memory

import (
	"context"
	"fmt"
)

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
	laterInAlbumSQL       = statement("laterInAlbum")
	toggleVoiceRepliesSQL = statement("toggleVoiceReplies")
	chatVoiceRepliesSQL   = statement("chatVoiceReplies")
)
