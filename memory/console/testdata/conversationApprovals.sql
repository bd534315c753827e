SELECT id, subject, status, created_at, decision_at, coalesce(decided_by, 0), coalesce(assistant_message_id, 0)
FROM pending_approvals
WHERE conversation_id = $1
ORDER BY id
