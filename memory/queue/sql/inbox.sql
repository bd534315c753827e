-- Saving an update: its digest is what Telegram sent for it, md5 of the
-- update's id and payload. The lookup of it is written with the expression
-- itself, not v's column: a generic plan made while the inbox is empty
-- takes v's digest for a join filter and reads every update of the bot on
-- each save.
-- An update id is held while any row names it (each an index probe): the
-- inbox's, a message's, a rollback's or an event stored once per update
-- (message_received, reply_sent, access_denied, rate_limited:
-- events_once_per_update); the next free id is the one after every id any
-- of them names.

-- name: saveUpdate
-- saveUpdate stores update @update_id (Telegram's id) of bot @bot_id in chat @chat_id
-- unless the same update of the same bot is there already (bot_id and
-- digest). When an earlier update holds its id — another bot's, or one from
-- before the Bot API's ids started again — it is stored under the next free
-- id, after every other, so the chat's order holds. An id is held while any
-- row names it: the inbox's, or (after the retention purge took the inbox
-- row) a message, rollback or once-per-update event of that update, which
-- the new update would otherwise be taken for. It returns the id it was
-- stored under (NULL when not stored) and whether it was there already.
WITH v AS (
	SELECT @payload::jsonb AS payload, md5(@update_id::bigint::text || ':' || @payload::jsonb::text)::uuid AS digest
), there AS (
	SELECT 1 FROM updates WHERE updates.bot_id = @bot_id AND updates.digest = md5(@update_id::bigint::text || ':' || @payload::jsonb::text)::uuid
), stored AS (
	INSERT INTO updates (bot_id, update_id, chat_id, payload, digest)
	SELECT @bot_id,
		CASE WHEN (EXISTS (SELECT 1 FROM updates WHERE update_id = @update_id)
			OR EXISTS (SELECT 1 FROM messages WHERE update_id = @update_id)
			OR EXISTS (SELECT 1 FROM conversation_rollbacks WHERE update_id = @update_id)
			OR EXISTS (SELECT 1 FROM events WHERE type = 'message_received' AND update_id = @update_id)
			OR EXISTS (SELECT 1 FROM events WHERE type = 'reply_sent' AND update_id = @update_id)
			OR EXISTS (SELECT 1 FROM events WHERE type = 'access_denied' AND update_id = @update_id)
			OR EXISTS (SELECT 1 FROM events WHERE type = 'rate_limited' AND update_id = @update_id))
		THEN (greatest((SELECT max(update_id) FROM updates),
			(SELECT max(update_id) FROM messages),
			(SELECT max(update_id) FROM conversation_rollbacks),
			(SELECT max(update_id) FROM events WHERE type = 'message_received'),
			(SELECT max(update_id) FROM events WHERE type = 'reply_sent'),
			(SELECT max(update_id) FROM events WHERE type = 'access_denied'),
			(SELECT max(update_id) FROM events WHERE type = 'rate_limited')) + 1)
		ELSE @update_id END,
		@chat_id, v.payload, v.digest
	FROM v WHERE NOT EXISTS (SELECT 1 FROM there)
	ON CONFLICT DO NOTHING
	RETURNING update_id
)
SELECT (SELECT update_id FROM stored), EXISTS (SELECT 1 FROM there)

-- name: saveNewUpdate
-- saveNewUpdate is saveUpdate for an update whose id is above every
-- id the inbox freed (migration 00025): then only the inbox's primary key
-- and the messages can hold it. It stores nothing when that is not so, or
-- when the id is held (neither stored nor there): saveUpdate then
-- stores it, a round trip later. Telegram's ids grow, so that is every
-- update while they do; after they start again (or with another bot's
-- ids), the updates at or below the bound take the second round trip
-- until the ids pass it. The messages are asked too because the purge
-- may be deleting the inbox's row of that id at this very moment (the
-- bound is raised when it commits, after this statement read it): the
-- turn must not take the new update for the old one's retry.
WITH v AS (
	SELECT @payload::jsonb AS payload, md5(@update_id::bigint::text || ':' || @payload::jsonb::text)::uuid AS digest
), there AS (
	SELECT 1 FROM updates WHERE updates.bot_id = @bot_id AND updates.digest = md5(@update_id::bigint::text || ':' || @payload::jsonb::text)::uuid
), stored AS (
	INSERT INTO updates (bot_id, update_id, chat_id, payload, digest)
	SELECT @bot_id, @update_id, @chat_id, v.payload, v.digest
	FROM v WHERE NOT EXISTS (SELECT 1 FROM there) AND @update_id > (SELECT max(through) FROM updates_freed)
	AND NOT EXISTS (SELECT 1 FROM messages WHERE update_id = @update_id)
	ON CONFLICT DO NOTHING
	RETURNING update_id
)
SELECT (SELECT update_id FROM stored), EXISTS (SELECT 1 FROM there)

-- name: claim
-- claim takes the oldest unfinished update of chat $1 for owner $2. It
-- takes nothing while that update is being handled by a live owner, so a
-- chat's updates are handled one at a time, in order, by however many
-- processes. FOR UPDATE (not SKIP LOCKED) makes a concurrent claimer wait and
-- then see the row as taken, rather than skip ahead to the chat's next update.
-- An update taken from another owner while 'processing' was in hand when
-- that owner died: crashes counts it, before any work starts. A scheduled
-- task's run, whose negative id sorts before Telegram's, waits while the
-- chat's oldest update from Telegram (the one that can be in hand) is in a
-- live owner's hands.
UPDATE updates u
SET state = 'processing', owner_id = $2, claimed_at = now(), attempts = u.attempts + 1,
	crashes = u.crashes + (u.state = 'processing' AND u.owner_id IS DISTINCT FROM $2)::int
FROM (SELECT update_id FROM updates WHERE chat_id = $1 AND state <> 'done'
      ORDER BY update_id LIMIT 1 FOR UPDATE) head
WHERE u.update_id = head.update_id
  AND (u.state = 'pending' OR u.owner_id = $2 OR NOT membot_owner_alive(u.owner_id))
  AND NOT coalesce((SELECT o.state = 'processing' AND o.update_id <> u.update_id AND membot_owner_alive(o.owner_id)
      FROM updates o WHERE o.chat_id = $1 AND o.state <> 'done' AND o.update_id > 0
      ORDER BY o.update_id LIMIT 1), false)
RETURNING u.update_id, u.chat_id, u.payload::text, u.attempts, u.crashes, coalesce(u.shown_message_ids, '{}'), u.task_id IS NOT NULL

-- name: replySent
-- replySent logs the delivery of assistant row $1, the answer to update
-- $2, with how long the update waited and was worked on in all.
INSERT INTO events (type, telegram_user_id, chat_id, conversation_id, update_id, payload)
SELECT 'reply_sent',
	coalesce((SELECT telegram_user_id FROM events WHERE type = 'message_received' AND update_id = $2), c.telegram_user_id),
	c.chat_id, m.conversation_id, $2, jsonb_build_object('message_id', m.id, 'telegram_message_ids', $3::bigint[],
		'turn_ms', (SELECT (extract(epoch FROM clock_timestamp() - received_at) * 1000)::bigint FROM updates WHERE update_id = $2))
FROM messages m JOIN conversations c ON c.id = m.conversation_id
WHERE m.id = $1
ON CONFLICT (type, update_id)
WHERE type IN ('message_received', 'reply_sent', 'access_denied', 'rate_limited') DO NOTHING

-- name: adoptUpdates
UPDATE updates SET bot_id = $1 WHERE bot_id = 0

-- name: noteShown
UPDATE updates SET shown_message_ids = $2 WHERE update_id = $1

-- name: recordDelivery
UPDATE messages SET telegram_message_id = @telegram_message_id,
			metadata = metadata || jsonb_strip_nulls(jsonb_build_object('telegram_message_ids', @telegram_message_ids::bigint[],
				'shown_as', NULLIF(@shown_as, ''))) WHERE id = @id

-- name: handBack
-- handBack returns what owner $1 holds to the inbox as it stops cleanly:
-- the next run takes those updates up without counting a crash.
UPDATE updates SET state = 'pending' WHERE owner_id = $1 AND state = 'processing'

-- name: completeUpdate
-- completeUpdate marks update $1 done, with why it was given up ($2) or
-- not served ($3), each NULL when empty.
UPDATE updates SET state = 'done', done_at = now(), error = NULLIF($2, ''), dropped = NULLIF($3, '') WHERE update_id = $1

-- name: unfinishedChats
SELECT DISTINCT chat_id FROM updates WHERE state <> 'done'

-- name: inboxBacklog
SELECT count(*), coalesce(extract(epoch FROM now() - min(received_at)), 0)::float8,
		(SELECT count(*) FROM conversations WHERE reset_at IS NOT NULL),
		(SELECT coalesce(extract(epoch FROM now() - min(reset_at)), 0)::float8 FROM conversations WHERE reset_at IS NOT NULL)
		FROM updates WHERE state <> 'done'


-- name: notePanic
-- notePanic counts a panic recovered while owner $2 handled update $1
-- against that update alone, as a run that died with it in hand would
-- be, and returns how many it has now and the messages its answer was
-- shown in so far (the next attempt goes on from them, as a takeover does).
UPDATE updates SET crashes = crashes + 1 WHERE update_id = $1 AND owner_id = $2
RETURNING crashes, coalesce(shown_message_ids, '{}')
