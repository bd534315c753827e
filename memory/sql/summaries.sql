-- name: newestSummary
-- newestSummary is the newest summary of conversation $1.
SELECT content, to_message_id FROM conversation_summaries
	WHERE conversation_id = $1 ORDER BY to_message_id DESC LIMIT 1

-- name: unsummarised
-- unsummarised is the newest @max_rows user and assistant rows of
-- conversation @conversation_id that are older than its newest @history_limit rows (the window) and
-- newer than its newest summary, oldest first; forgotten rows neither
-- count in the window nor are summarised. The newest: a conversation
-- older than the summaries (a bot upgraded with long histories) is
-- summarised from where it stands, not from its first row; afterwards
-- rows leave the window a turn at a time, and each chunk takes them all.
SELECT * FROM (
	SELECT m.id, m.role, left(membot_plain_text(m.content), @max_chars) AS text, coalesce(m.written_at, m.created_at) AS written_at,
		coalesce(m.metadata->'media'->0->>'kind', '') AS media, coalesce((m.metadata->>'forwarded')::boolean, false) AS forwarded,
		m.metadata ? 'scheduled' AS scheduled, coalesce(m.metadata->>'via_bot', '') AS via_bot,
		coalesce((m.metadata->>'author_id')::bigint, 0) AS author_id FROM messages m
	WHERE m.conversation_id = @conversation_id AND m.role IN ('user', 'assistant') AND m.content <> '' AND NOT m.forgotten
	  AND m.id < (SELECT coalesce(min(id), 0) FROM (SELECT id FROM messages WHERE conversation_id = @conversation_id AND NOT forgotten ORDER BY id DESC LIMIT @history_limit) w)
	  AND m.id > coalesce((SELECT to_message_id FROM conversation_summaries WHERE conversation_id = @conversation_id ORDER BY to_message_id DESC LIMIT 1), 0)
	ORDER BY m.id DESC LIMIT @max_rows) newest
ORDER BY id

-- name: saveSummary
-- saveSummary stores a summary of the @rows rows unsummarised gave from
-- from_message_id to to_message_id, unless its conversation was deleted
-- (/new) or fewer of them are left as unsummarised reads them: a forget
-- marked one while the summary was written, and it may hold the fact.
INSERT INTO conversation_summaries (conversation_id, chat_id, from_message_id, to_message_id, content, model)
		SELECT id, @chat_id, @from_message_id, @to_message_id, @content, @model FROM conversations WHERE id = @conversation_id::uuid
		AND (SELECT count(*) FROM messages WHERE conversation_id = @conversation_id::uuid
			AND id BETWEEN @from_message_id AND @to_message_id
			AND role IN ('user', 'assistant') AND content <> '' AND NOT forgotten) = @rows

-- name: summaries
SELECT conversation_id::text, chat_id, from_message_id, to_message_id, content, model
		FROM conversation_summaries WHERE conversation_id = $1 ORDER BY to_message_id

