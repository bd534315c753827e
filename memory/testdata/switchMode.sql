WITH old AS (
	SELECT mode FROM conversations WHERE id = $1 FOR UPDATE
), changed AS (
	UPDATE conversations SET mode = $2 WHERE id = $1 AND mode <> $2 RETURNING id
), recorded AS (
	INSERT INTO mode_switches (conversation_id, chat_id, from_mode, to_mode, reason)
	SELECT changed.id, $4, old.mode, $2, $3 FROM old, changed
)
SELECT mode FROM old
