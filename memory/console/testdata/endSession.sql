UPDATE web_sessions SET ended_at = now() WHERE id = $1 AND ended_at IS NULL
