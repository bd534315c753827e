SELECT id, kind, telegram_user_id, chat_id, text, due_at, coalesce(schedule, ''), status
FROM reminders
WHERE status IN ('pending', 'paused')
ORDER BY due_at
LIMIT 500
