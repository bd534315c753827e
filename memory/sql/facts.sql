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
-- remember saves fact @content of user @telegram_user_id (origin @origin). The same text saved
-- again (in any case) only refreshes the current row, so it moves to the top;
-- its source stays the message that first said it, so taking back the turn
-- that only said it again (/undo) leaves it.
WITH same AS (
	UPDATE memories SET updated_at = clock_timestamp(), source_message_id = coalesce(source_message_id, NULLIF(@source_message_id::bigint, 0))
	WHERE telegram_user_id = @telegram_user_id AND lower(content) = lower(@content) AND superseded_by IS NULL
	RETURNING id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin
), added AS (
	INSERT INTO memories (telegram_user_id, content, source_message_id, origin)
	SELECT @telegram_user_id, @content, NULLIF(@source_message_id::bigint, 0), @origin
	WHERE NOT EXISTS (SELECT 1 FROM same)
	  AND (SELECT count(*) FROM memories WHERE telegram_user_id = @telegram_user_id AND superseded_by IS NULL) < @max_facts
	RETURNING id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin
)
SELECT * FROM same UNION ALL SELECT * FROM added LIMIT 1

-- name: supersede
-- supersede replaces the current fact @id of user @telegram_user_id by a new row with
-- text @content (origin @origin): the old row stays, pointing at the new one, with the
-- time it stopped being true. A fact that did not change is only refreshed.
WITH old AS (
	SELECT id, lower(content) = lower(@content) AS same FROM memories WHERE id = @id AND telegram_user_id = @telegram_user_id AND superseded_by IS NULL FOR UPDATE
), refreshed AS (
	UPDATE memories m SET updated_at = clock_timestamp() FROM old WHERE m.id = old.id AND old.same
	RETURNING m.id, m.content, coalesce(m.source_message_id, 0) AS source_message_id, m.created_at, m.updated_at, m.origin
), added AS (
	INSERT INTO memories (telegram_user_id, content, source_message_id, origin)
	SELECT @telegram_user_id, @content, NULLIF(@source_message_id::bigint, 0), @origin FROM old WHERE NOT old.same
	RETURNING id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin
), marked AS (
	UPDATE memories m SET superseded_by = added.id, valid_until = clock_timestamp() FROM added WHERE m.id = @id
)
SELECT * FROM refreshed UNION ALL SELECT * FROM added

-- name: forgetFacts
-- forgetFacts forgets facts of the user, each with the versions it
-- superseded: with all, every one; otherwise their current fact id, or,
-- with id 0, their current fact number offset + 1 as /memory lists them
-- (see the top of the file). It returns the current facts forgotten. The messages a
-- forgotten fact came from (its source row and the rest of that exchange,
-- up to the next user row) are marked forgotten, so that neither recall
-- nor the memorizer reads them again, and the user's summaries, which may
-- hold it, are dropped. The superseded versions are returned too (current
-- false): each leaves a tombstone (memory/forgotten.go).
WITH RECURSIVE chain AS (
	(SELECT id FROM memories WHERE telegram_user_id = @telegram_user_id AND superseded_by IS NULL AND (@id::bigint = 0 OR id = @id) AND NOT @all::bool
		ORDER BY updated_at DESC, id DESC OFFSET @offset LIMIT 1)
	UNION ALL SELECT m.id FROM memories m JOIN chain c ON m.superseded_by = c.id
), gone AS (
	DELETE FROM memories WHERE telegram_user_id = @telegram_user_id AND (@all::bool OR id IN (SELECT id FROM chain)) RETURNING *
), sources AS (
	SELECT s.id, s.conversation_id FROM messages s WHERE s.id IN (SELECT source_message_id FROM gone)
), marked AS (
	UPDATE messages m SET forgotten = true FROM sources s
	WHERE m.conversation_id = s.conversation_id AND m.id >= s.id AND NOT m.forgotten
	  AND m.id < coalesce((SELECT min(n.id) FROM messages n WHERE n.conversation_id = s.conversation_id AND n.role = 'user' AND n.id > s.id), 9223372036854775807)
), dropped AS (
	DELETE FROM conversation_summaries WHERE chat_id = @telegram_user_id AND EXISTS (SELECT 1 FROM gone)
)
SELECT id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin, superseded_by IS NULL AS current FROM gone

-- name: facts
SELECT id, content, coalesce(source_message_id, 0) AS source_message_id, created_at, updated_at, origin FROM memories WHERE telegram_user_id = $1 AND superseded_by IS NULL ORDER BY updated_at DESC, id DESC

