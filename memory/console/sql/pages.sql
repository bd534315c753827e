-- name: overview
-- The overview's counts. messages is estimated from the planner's
-- statistics: counting millions of rows for a page is not worth its cost.
SELECT
	(SELECT count(*) FROM users),
	(SELECT count(DISTINCT chat_id) FROM conversations WHERE reset_at IS NULL),
	(SELECT greatest(reltuples, 0)::bigint FROM pg_class WHERE oid = 'messages'::regclass),
	(SELECT count(*) FROM updates WHERE state <> 'done'),
	(SELECT count(*) FROM updates WHERE error IS NOT NULL AND received_at >= $1),
	(SELECT coalesce(sum(total_tokens), 0) FROM llm_calls WHERE created_at >= $1),
	(SELECT count(*) FROM llm_calls WHERE created_at >= $1),
	(SELECT count(*) FROM pending_approvals WHERE status = 'pending'),
	(SELECT count(*) FROM reminders WHERE status = 'pending' AND schedule IS NULL),
	(SELECT count(*) FROM reminders WHERE status = 'pending' AND schedule IS NOT NULL)

-- name: recentFailures
-- The updates that failed lately, newest first, with what went wrong.
SELECT update_id, chat_id, state, coalesce(error, ''), received_at, attempts, crashes
FROM updates
WHERE error IS NOT NULL AND received_at >= $1
ORDER BY received_at DESC
LIMIT 20

-- name: usageByDay
-- Tokens and calls per day in the zone $2, for the days since $1.
SELECT (created_at AT TIME ZONE $2)::date AS day, coalesce(sum(total_tokens), 0), count(*)
FROM llm_calls
WHERE created_at >= $1
GROUP BY day
ORDER BY day

-- name: usageByUser
SELECT l.telegram_user_id, coalesce(u.username, ''), coalesce(u.first_name, ''),
	coalesce(sum(l.total_tokens), 0), count(*)
FROM llm_calls l
LEFT JOIN users u ON u.telegram_user_id = l.telegram_user_id
WHERE l.created_at >= $1 AND l.telegram_user_id IS NOT NULL
GROUP BY l.telegram_user_id, u.username, u.first_name
ORDER BY 4 DESC
LIMIT 50

-- name: usageByModel
SELECT model, purpose, coalesce(sum(total_tokens), 0), count(*), count(*) FILTER (WHERE status <> 'ok')
FROM llm_calls
WHERE created_at >= $1
GROUP BY model, purpose
ORDER BY 3 DESC
LIMIT 50

-- name: users
-- Every user with how many current facts the bot keeps of them.
SELECT u.telegram_user_id, coalesce(u.username, ''), coalesce(u.first_name, ''), coalesce(u.last_name, ''),
	coalesce(u.language_code, ''), u.last_seen_at,
	(SELECT count(*) FROM memories m WHERE m.telegram_user_id = u.telegram_user_id AND m.superseded_by IS NULL)
FROM users u
ORDER BY u.last_seen_at DESC
LIMIT 500

-- name: user
SELECT telegram_user_id, coalesce(username, ''), coalesce(first_name, ''), coalesce(last_name, ''),
	coalesce(language_code, ''), last_seen_at, 0::bigint
FROM users WHERE telegram_user_id = $1

-- name: userFacts
-- Every fact of the user, current and replaced, with the user row it was
-- read from (the exchange's start; its text withheld once that exchange
-- was forgotten) and what replaced it.
SELECT m.id, m.content, m.origin, m.created_at, m.updated_at, m.superseded_by, m.valid_until,
	coalesce(src.id, 0), CASE WHEN src.forgotten THEN '' ELSE left(coalesce(src.content, ''), 2001) END,
	coalesce(src.role, ''), src.created_at, coalesce(src.forgotten, false)
FROM memories m
LEFT JOIN messages src ON src.id = m.source_message_id
WHERE m.telegram_user_id = $1
ORDER BY (m.superseded_by IS NULL) DESC, m.updated_at DESC, m.id DESC
LIMIT 500

-- name: userSummaries
-- The summaries of the user's private chat (a thread each): a group's
-- are the group's, whoever started its conversation.
SELECT s.id, s.chat_id, s.content, s.created_at
FROM conversation_summaries s
JOIN conversations c ON c.id = s.conversation_id
WHERE c.chat_id = $1 AND c.telegram_user_id = $1 AND c.reset_at IS NULL
ORDER BY s.created_at DESC
LIMIT 50

-- name: chats
-- The current conversations, the most recently active first.
SELECT c.id::text, c.chat_id, coalesce(c.message_thread_id, 0), c.telegram_user_id, coalesce(u.username, ''),
	coalesce(u.first_name, ''), c.created_at,
	coalesce((SELECT m.created_at FROM messages m WHERE m.conversation_id = c.id ORDER BY m.id DESC LIMIT 1), c.created_at) AS last_at
FROM conversations c
LEFT JOIN users u ON u.telegram_user_id = c.telegram_user_id
WHERE c.reset_at IS NULL
ORDER BY last_at DESC
LIMIT 200

-- name: conversationMessages
-- A conversation's newest rows, oldest first: each text cut past what a
-- page shows (its whole length told), so a page of 1 MB messages reads
-- kilobytes; an assistant row's first 20 tool calls apart (id, name, the
-- arguments cut), and what a user row's metadata says of where it came
-- from (as summaries.sql reads it: the first file's kind, forwarded, via
-- an inline bot, a scheduled run; in a group chat).
SELECT id, role, left(content, 2001), length(content), left(coalesce(tool_calls::text, ''), 2001), coalesce(tool_name, ''),
	left(coalesce(metadata::text, '{}'), 2001), created_at, forgotten,
	coalesce((SELECT jsonb_agg(jsonb_build_object('id', left(c.call->>'id', 200), 'name', left(c.call->>'name', 200),
		'arguments', left(c.call->>'arguments', 2001)) ORDER BY c.n)
		FROM jsonb_array_elements(CASE WHEN jsonb_typeof(tool_calls) = 'array' THEN tool_calls ELSE '[]' END) WITH ORDINALITY AS c(call, n)
		WHERE c.n <= 20), '[]'),
	coalesce(metadata->'media'->0->>'kind', ''), coalesce((metadata->>'forwarded')::boolean, false),
	coalesce(metadata ? 'scheduled', false), coalesce(metadata->>'via_bot', ''),
	(SELECT chat_id < 0 FROM conversations WHERE id = $1)
FROM (
	SELECT * FROM messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2
) newest
ORDER BY id

-- name: conversationApprovals
-- The approvals asked in a conversation, each with the tool call it is
-- of (request_id) and the name of who decided it as last seen.
SELECT a.id, a.subject, a.status, a.created_at, a.decision_at, coalesce(a.decided_by, 0), coalesce(a.assistant_message_id, 0),
	left(a.request_id, 200), coalesce(u.first_name, ''), coalesce(u.username, '')
FROM pending_approvals a
LEFT JOIN users u ON u.telegram_user_id = a.decided_by
WHERE a.conversation_id = $1
ORDER BY a.id
LIMIT 1000

-- name: pendingApprovals
SELECT id, subject, telegram_user_id, chat_id, created_at
FROM pending_approvals
WHERE status = 'pending'
ORDER BY created_at
LIMIT 200

-- name: cancelApproval
-- An approval the operator cancels on the web page: its buttons then
-- answer that it was cancelled, as after /new.
UPDATE pending_approvals
SET status = 'cancelled', decision_at = now(), decision_reason = 'cancelled on the web page'
WHERE id = $1 AND status = 'pending'
RETURNING chat_id

-- name: waitingReminders
-- Reminders and scheduled tasks that still wait to run.
SELECT id, kind, telegram_user_id, chat_id, text, due_at, coalesce(schedule, ''), status
FROM reminders
WHERE status IN ('pending', 'paused')
ORDER BY due_at
LIMIT 500

-- name: cancelReminder
-- A reminder or a task that still waits, cancelled: the operator's (user
-- 0) any, a user's their own only.
UPDATE reminders SET status = 'cancelled'
WHERE id = $1 AND status IN ('pending', 'paused') AND ($2::bigint = 0 OR telegram_user_id = $2::bigint)
RETURNING chat_id

-- name: userReminders
-- The reminders and tasks a user set that still wait, in any chat.
SELECT id, kind, telegram_user_id, chat_id, text, due_at, coalesce(schedule, ''), status
FROM reminders
WHERE telegram_user_id = $1 AND status IN ('pending', 'paused')
ORDER BY due_at
LIMIT 200

-- name: privateConversations
-- The user's current conversations in their private chat with the bot
-- (a thread each), never a group's.
SELECT id::text FROM conversations
WHERE chat_id = $1 AND telegram_user_id = $1 AND reset_at IS NULL
ORDER BY created_at DESC
LIMIT 20

-- name: messageText
SELECT content FROM messages WHERE id = $1
