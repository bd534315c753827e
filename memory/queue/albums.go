package queue

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

// The statement of this file, whole in sql/albums.sql.
var laterInAlbumSQL = statement("laterInAlbum")
