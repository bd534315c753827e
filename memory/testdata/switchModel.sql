WITH old AS (
	SELECT coalesce(model, '') AS model FROM conversations WHERE id = $1 FOR UPDATE
), changed AS (
	UPDATE conversations SET model = NULLIF($2, '') WHERE id = $1 AND coalesce(model, '') <> $2 RETURNING id
), recorded AS (
	INSERT INTO model_switches (conversation_id, chat_id, from_model, to_model, reason)
	SELECT changed.id, $4, old.model, $2, $3 FROM old, changed
)
SELECT model FROM old
