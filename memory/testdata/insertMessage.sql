INSERT INTO messages
	(conversation_id, role, content, tool_calls, tool_call_id, tool_name, telegram_message_id, update_id, metadata, search_vector)
VALUES ($1, $2, $3, $4, NULLIF($5, ''), NULLIF($6, ''), NULLIF($7::bigint, 0), NULLIF($8::bigint, 0), coalesce($9, '{}'::jsonb),
	membot_message_stems($2::text, $3::text))
RETURNING id
