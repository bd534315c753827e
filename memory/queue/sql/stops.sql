-- name: stopRequests
-- stopRequests finds the requests to stop the answer to update @update_id among
-- the chat's unfinished updates after update @after_update_id (an index range of
-- updates_unfinished), oldest first, at most @max_requests, with who asked:
--   - Telegram's stopped_message_generation for the answer's draft (@draft_id):
--     a draft is shown in a private chat only, so the chat is who asked;
--   - /stop, or a press of a Stop button (callback data "stop"), that
--     arrived after the update was claimed: an older one was meant for an
--     earlier answer. Who asked is the message's sender or the presser.
SELECT s.update_id,
  coalesce(s.payload #>> '{message,from,id}', s.payload #>> '{callback_query,from,id}', s.chat_id::text)::bigint
FROM updates s
WHERE s.chat_id = @chat_id AND s.update_id > greatest(@update_id::bigint, @after_update_id::bigint) AND s.state <> 'done'
  AND ((s.payload #>> '{stopped_message_generation,draft_id}') = (@draft_id::bigint)::text
    OR ((s.payload #>> '{message,text}' ~* '^/stop(@[a-z0-9_]+)?(\s|$)'
         OR s.payload #>> '{callback_query,data}' = 'stop')
        AND s.received_at >= (SELECT claimed_at FROM updates WHERE update_id = @update_id)))
ORDER BY s.update_id
LIMIT @max_requests
