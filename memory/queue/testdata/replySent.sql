INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
SELECT 'reply_sent',
	coalesce((SELECT telegram_user_id FROM events WHERE type = 'message_received' AND update_id = $2), c.telegram_user_id),
	c.chat_id, m.conversation_id, $2, jsonb_build_object('message_id', m.id, 'telegram_message_ids', $3::bigint[],
		'turn_ms', (SELECT (extract(epoch FROM clock_timestamp() - received_at) * 1000)::bigint FROM updates WHERE update_id = $2))
FROM messages m JOIN conversations c ON c.id = m.conversation_id
WHERE m.id = $1
ON CONFLICT (type, update_id)
WHERE type IN ('message_received', 'reply_sent', 'access_denied', 'rate_limited') DO NOTHING
