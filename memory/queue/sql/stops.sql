-- name: stopRequests
-- stopRequests finds the requests to stop the answer to update $2 among
-- the chat's unfinished updates after update $4 (an index range of
-- updates_unfinished), oldest first, at most $5, with who asked:
--   - Telegram's stopped_message_generation for the answer's draft ($3):
--     a draft is shown in a private chat only, so the chat is who asked;
--   - /stop, or a press of a Stop button (callback data "stop"), that
--     arrived after the update was claimed: an older one was meant for an
--     earlier answer. Who asked is the message's sender or the presser.
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
