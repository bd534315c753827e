UPDATE updates u
SET state = 'processing', owner_id = $2, claimed_at = now(), attempts = u.attempts + 1,
	crashes = u.crashes + (u.state = 'processing' AND u.owner_id IS DISTINCT FROM $2)::int
FROM (SELECT update_id FROM updates WHERE chat_id = $1 AND state <> 'done'
      ORDER BY update_id LIMIT 1 FOR UPDATE) head
WHERE u.update_id = head.update_id
  AND (u.state = 'pending' OR NOT membot_owner_alive(u.owner_id))
  AND NOT coalesce((SELECT o.state = 'processing' AND o.update_id <> u.update_id AND membot_owner_alive(o.owner_id)
      FROM updates o WHERE o.chat_id = $1 AND o.state <> 'done' AND o.update_id > 0
      ORDER BY o.update_id LIMIT 1), false)
RETURNING u.update_id, u.chat_id, u.payload::text, u.attempts, u.crashes, coalesce(u.shown_message_ids, '{}'), u.task_id IS NOT NULL
