-- name: buryFact
INSERT INTO forgotten_facts (telegram_user_id, terms, need) VALUES ($1, $2, $3)

-- name: privateRows
-- privateRows reads the rows of user $1's private chat still remembered:
-- their text, with the arguments of the tool calls an answer made.
SELECT id, content || coalesce(' ' || tool_calls::text, '') FROM messages
WHERE conversation_id IN (SELECT id FROM conversations WHERE chat_id = $1) AND NOT forgotten

-- name: forgetRows
UPDATE messages SET forgotten = true WHERE id = ANY($1::bigint[]) AND NOT forgotten

-- name: tombstones
SELECT terms, need FROM forgotten_facts WHERE telegram_user_id = $1 ORDER BY id DESC LIMIT 1000

-- name: forgetExchange
UPDATE messages SET forgotten = true WHERE conversation_id = $1 AND id BETWEEN $2 AND $3 AND NOT forgotten
