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
