INSERT INTO reminders (telegram_user_id, chat_id, text, due_at, source_message_id, message_thread_id)
SELECT $1, $2, $3, $4, NULLIF($5::bigint, 0), nullif($8::bigint, 0)
WHERE (SELECT count(*) FROM reminders WHERE telegram_user_id = $1 AND status IN ('pending', 'sending') AND schedule IS NULL) < $6
  AND (SELECT count(*) FROM reminders WHERE chat_id = $2 AND status IN ('pending', 'sending') AND schedule IS NULL) < $6
  AND (SELECT count(*) FROM reminders WHERE chat_id = $2 AND created_at > now() - interval '1 hour') < $7
RETURNING id
