INSERT INTO reminders (telegram_user_id, chat_id, text, due_at, source_message_id, message_thread_id, kind, schedule, time_zone)
SELECT $1, $2, $3, $4, NULLIF($5::bigint, 0), nullif($6::bigint, 0), $7, $8, $12
WHERE (SELECT count(*) FROM reminders WHERE telegram_user_id = $1 AND schedule IS NOT NULL AND status IN ('pending', 'sending', 'paused')) < $9
  AND (SELECT count(*) FROM reminders WHERE chat_id = $2 AND schedule IS NOT NULL AND status IN ('pending', 'sending', 'paused')) < $10
  AND (SELECT count(*) FROM reminders WHERE chat_id = $2 AND created_at > now() - interval '1 hour') < $11
RETURNING id
