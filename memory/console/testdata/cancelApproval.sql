UPDATE pending_approvals
SET status = 'cancelled', decision_at = now(), decision_reason = 'cancelled on the web page'
WHERE id = $1 AND status = 'pending'
RETURNING chat_id
