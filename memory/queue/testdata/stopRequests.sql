SELECT s.update_id,
  coalesce(s.payload #>> '{message,from,id}', s.payload #>> '{callback_query,from,id}', s.chat_id::text)::bigint
FROM updates s
WHERE s.chat_id = $1 AND s.update_id > greatest($2::bigint, $4::bigint) AND s.state <> 'done'
  AND ((s.payload #>> '{stopped_message_generation,draft_id}') = ($3::bigint)::text
    OR ((s.payload #>> '{message,text}' ~* '^/stop(@[a-z0-9_]+)?(\s|$)'
         OR s.payload #>> '{callback_query,data}' = 'stop')
        AND s.received_at >= (SELECT claimed_at FROM updates WHERE update_id = $2)))
ORDER BY s.update_id
LIMIT $5
