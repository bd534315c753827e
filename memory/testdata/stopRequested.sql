SELECT EXISTS (
  SELECT 1 FROM updates s
  WHERE s.chat_id = $1 AND s.update_id > $2 AND s.state <> 'done'
    AND ((s.payload #>> '{stopped_message_generation,draft_id}') = ($3::bigint)::text
      OR ((s.payload #>> '{message,text}' ~* '^/stop(@[a-z0-9_]+)?(\s|$)'
           OR s.payload #>> '{callback_query,data}' = 'stop')
          AND s.received_at >= (SELECT claimed_at FROM updates WHERE update_id = $2))))
