-- A current fact is one still true (superseded_by IS NULL): a superseded
-- one points at its successor. Facts are ordered as the system prompt and
-- /memory show them: newest first (updated_at DESC, id DESC).
--
-- Forgetting a fact deletes the current fact chosen (chain's head)
-- together with the older versions it superseded: a fact the user takes
-- back goes with its history. It returns the current row. The turns the
-- deleted rows were read from (each source row up to the next user row of
-- its conversation: the answer, its tool calls and results) are marked
-- forgotten, so no model sees them again (see migration 00033), and every
-- summary of the user's private chats is dropped: a summary may hold the
-- fact in words of its own, which no rule can find, and the after-turn job
-- writes it again from the rows, the forgotten ones left out.

-- name: factsWithin
-- factsWithin selects user $1's newest facts whose texts add up to at
-- most $2 characters.
SELECT id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin FROM (
	SELECT *, sum(length(content)) OVER (ORDER BY updated_at DESC, id DESC) AS running
	FROM memories WHERE telegram_user_id = $1 AND superseded_by IS NULL) f
WHERE running <= $2 ORDER BY updated_at DESC, id DESC

-- name: remember
-- remember saves fact $2 of user $1 (origin $5). The same text saved
-- again (in any case) only refreshes the current row, so it moves to the top;
-- its source stays the message that first said it, so taking back the turn
-- that only said it again (/undo) leaves it.
WITH same AS (
	UPDATE memories SET updated_at = clock_timestamp(), source_message_id = coalesce(source_message_id, NULLIF($3::bigint, 0))
	WHERE telegram_user_id = $1 AND lower(content) = lower($2) AND superseded_by IS NULL
	RETURNING id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin
), added AS (
	INSERT INTO memories (telegram_user_id, content, source_message_id, origin)
	SELECT $1, $2, NULLIF($3::bigint, 0), $5
	WHERE NOT EXISTS (SELECT 1 FROM same)
	  AND (SELECT count(*) FROM memories WHERE telegram_user_id = $1 AND superseded_by IS NULL) < $4
	RETURNING id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin
)
SELECT * FROM same UNION ALL SELECT * FROM added LIMIT 1

-- name: supersede
-- supersede replaces the current fact $1 of user $2 by a new row with
-- text $3 (origin $5): the old row stays, pointing at the new one, with the
-- time it stopped being true. A fact that did not change is only refreshed.
WITH old AS (
	SELECT id, lower(content) = lower($3) AS same FROM memories WHERE id = $1 AND telegram_user_id = $2 AND superseded_by IS NULL FOR UPDATE
), refreshed AS (
	UPDATE memories m SET updated_at = clock_timestamp() FROM old WHERE m.id = old.id AND old.same
	RETURNING m.id, m.content, coalesce(m.source_message_id, 0) AS source_message_id, m.created_at, m.updated_at, m.origin
), added AS (
	INSERT INTO memories (telegram_user_id, content, source_message_id, origin)
	SELECT $2, $3, NULLIF($4::bigint, 0), $5 FROM old WHERE NOT old.same
	RETURNING id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin
), marked AS (
	UPDATE memories m SET superseded_by = added.id, valid_until = clock_timestamp() FROM added WHERE m.id = $1
)
SELECT * FROM refreshed UNION ALL SELECT * FROM added

-- name: forgetFacts
-- forgetFacts forgets facts of user $2, each with the versions it
-- superseded: with $4 every one; otherwise their current fact $1, or, with
-- $1 = 0, their current fact number $3 + 1 as /memory lists them (see the
-- top of the file). It returns the current facts forgotten. The messages a
-- forgotten fact came from (its source row and the rest of that exchange,
-- up to the next user row) are marked forgotten, so that neither recall
-- nor the memorizer reads them again, and the user's summaries, which may
-- hold it, are dropped. The superseded versions are returned too (current
-- false): each leaves a tombstone (memory/forgotten.go).
WITH RECURSIVE chain AS (
	(SELECT id FROM memories WHERE telegram_user_id = $2 AND superseded_by IS NULL AND ($1::bigint = 0 OR id = $1) AND NOT $4::bool
		ORDER BY updated_at DESC, id DESC OFFSET $3 LIMIT 1)
	UNION ALL SELECT m.id FROM memories m JOIN chain c ON m.superseded_by = c.id
), gone AS (
	DELETE FROM memories WHERE telegram_user_id = $2 AND ($4::bool OR id IN (SELECT id FROM chain)) RETURNING *
), sources AS (
	SELECT s.id, s.conversation_id FROM messages s WHERE s.id IN (SELECT source_message_id FROM gone)
), marked AS (
	UPDATE messages m SET forgotten = true FROM sources s
	WHERE m.conversation_id = s.conversation_id AND m.id >= s.id AND NOT m.forgotten
	  AND m.id < coalesce((SELECT min(n.id) FROM messages n WHERE n.conversation_id = s.conversation_id AND n.role = 'user' AND n.id > s.id), 9223372036854775807)
), dropped AS (
	DELETE FROM conversation_summaries WHERE chat_id = $2 AND EXISTS (SELECT 1 FROM gone)
)
SELECT id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin, superseded_by IS NULL AS current FROM gone

-- name: facts
SELECT id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin FROM memories WHERE telegram_user_id = $1 AND superseded_by IS NULL ORDER BY updated_at DESC, id DESC

