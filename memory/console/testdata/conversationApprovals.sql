SELECT a.id, a.subject, a.status, a.created_at, a.decision_at, coalesce(a.decided_by, 0), coalesce(a.assistant_message_id, 0),
	left(a.request_id, 200), coalesce(u.first_name, ''), coalesce(u.username, '')
FROM pending_approvals a
LEFT JOIN users u ON u.telegram_user_id = a.decided_by
WHERE a.conversation_id = $1
ORDER BY a.id
LIMIT 1000
