SELECT id, subject, telegram_user_id, chat_id, created_at
FROM pending_approvals
WHERE status = 'pending'
ORDER BY created_at
LIMIT 200
