-- name: stopRequested
-- stopRequested finds a request to stop the answer to update $2 among the
-- chat's unfinished updates after it (an index range of updates_unfinished):
--   - Telegram's stopped_message_generation for the answer's draft ($3);
--   - /stop, or a press of a Stop button (callback data "stop"), that
--     arrived after the update was claimed: an older one was meant for an
--     earlier answer.
SELECT EXISTS (
  SELECT 1 FROM updates s
  WHERE s.chat_id = $1 AND s.update_id > $2 AND s.state <> 'done'
    AND ((s.payload #>> '{stopped_message_generation,draft_id}') = ($3::bigint)::text
      OR ((s.payload #>> '{message,text}' ~* '^/stop(@[a-z0-9_]+)?(\s|$)'
           OR s.payload #>> '{callback_query,data}' = 'stop')
          AND s.received_at >= (SELECT claimed_at FROM updates WHERE update_id = $2))))

