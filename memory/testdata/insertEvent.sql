INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
VALUES ($1, NULLIF($2::bigint, 0), NULLIF($3::bigint, 0), NULLIF($4, '')::uuid, NULLIF($5::bigint, 0), coalesce($6::jsonb, '{}'))
ON CONFLICT (type, update_id)
WHERE type IN ('message_received', 'reply_sent', 'access_denied', 'rate_limited') DO NOTHING
