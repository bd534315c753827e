UPDATE pending_approvals SET pin = $3 WHERE request_id = $1 AND conversation_id = $2::uuid AND status = 'pending'
