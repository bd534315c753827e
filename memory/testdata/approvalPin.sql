SELECT coalesce(pin::text, '') FROM pending_approvals WHERE id = $1
