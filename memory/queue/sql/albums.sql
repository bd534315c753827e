-- name: laterInAlbum
-- laterInAlbum looks for an unfinished update of the chat after $2 that
-- is part of album $3 (by the updates_unfinished index: a chat has few).
SELECT EXISTS (SELECT 1 FROM updates
	WHERE chat_id = $1 AND update_id > $2 AND state <> 'done' AND payload->'message'->>'media_group_id' = $3)
