-- A message row is selected in the shape of Message (the column list of
-- every statement that returns one). The stems a row keeps
-- (messages.search_vector, membot_message_stems of migration 00026) are
-- computed by the bot's inserts in their own statement, planned (and the
-- function inlined) once per connection.
--
-- The newest rows of one conversation (lastMessages, and the history of a
-- turn or a retry) are read oldest first by a backward scan of the
-- (conversation_id, id) index that stops after the limit, however long the
-- conversation and the table are. It says "conversation_id between c and c"
-- rather than "= c" on purpose: with "=", the planner may walk the primary
-- key back from the newest row of the whole table, skipping other
-- conversations' rows, which is slow for a long conversation taken up
-- again after a pause; with the range, only the (conversation_id, id)
-- index gives the order asked for. (The columns are qualified: unqualified, ORDER BY would take the
-- text conversation_id of the select list, which no index gives.)

-- name: insertMessage
INSERT INTO messages
	(conversation_id, role, content, tool_calls, tool_call_id, tool_name, telegram_message_id, update_id, metadata, search_vector)
VALUES (@conversation_id, @role, @content, @tool_calls, NULLIF(@tool_call_id, ''), NULLIF(@tool_name, ''),
	NULLIF(@telegram_message_id::bigint, 0), NULLIF(@update_id::bigint, 0), coalesce(@metadata, '{}'::jsonb),
	membot_message_stems(@role::text, @content::text))
RETURNING id

-- name: markRefused
-- markRefused notes on a user row why the model server refused it for good
-- ($2): the requests of later turns leave it out.
UPDATE messages SET metadata = coalesce(metadata, '{}'::jsonb) || jsonb_build_object('refused', $2::text)
WHERE id = $1 AND role = 'user'

-- name: lastMessages
SELECT * FROM (SELECT id, conversation_id::text AS conversation_id, role, content, tool_calls,
	coalesce(tool_call_id, '') AS tool_call_id, coalesce(tool_name, '') AS tool_name,
	coalesce(telegram_message_id, 0) AS telegram_message_id, coalesce(update_id, 0) AS update_id,
	metadata, created_at, coalesce(written_at, created_at) AS written_at,
	CASE WHEN tool_calls IS NOT NULL AND metadata->>'reasoning_from' = 'reasoning_content'
		THEN coalesce(metadata->>'reasoning', '') ELSE '' END AS reasoning_back,
	CASE WHEN role = 'user' THEN metadata->'media' END AS media FROM messages m
	WHERE m.conversation_id >= $1 AND m.conversation_id <= $1
	ORDER BY m.conversation_id DESC, m.id DESC LIMIT $2) newest ORDER BY id

