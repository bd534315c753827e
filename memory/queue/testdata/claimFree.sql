UPDATE updates u
SET state = 'processing', owner_id = $2, claimed_at = now(), attempts = u.attempts + 1,
	crashes = u.crashes + (u.state = 'processing' AND u.owner_id IS DISTINCT FROM $2)::int
FROM (SELECT update_id FROM updates WHERE chat_id = $1 AND state <> 'done'
      ORDER BY update_id LIMIT 1 FOR UPDATE) head
WHERE u.update_id = head.update_id
  AND (u.state = 'pending' OR NOT membot_owner_alive(u.owner_id))
RETURNING u.update_id, u.chat_id, u.payload::text, u.attempts, u.crashes, coalesce(u.shown_message_ids, '{}')
