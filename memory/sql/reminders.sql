-- A chat's pending reminders (those without a schedule: the scheduled ones
-- are tasks, tasks.sql) are numbered for /reminders by due_at, id.

-- name: addReminder
-- addReminder adds the reminder unless it would pass the bounds (@max_pending waiting
-- for the user or the chat, @max_per_hour set in the chat an hour);
-- then it returns no row.
INSERT INTO reminders (telegram_user_id, chat_id, text, due_at, source_message_id, message_thread_id)
SELECT @telegram_user_id, @chat_id, @text, @due_at, NULLIF(@source_message_id::bigint, 0), nullif(@message_thread_id::bigint, 0)
WHERE (SELECT count(*) FROM reminders WHERE telegram_user_id = @telegram_user_id AND status IN ('pending', 'sending') AND schedule IS NULL) < @max_pending
  AND (SELECT count(*) FROM reminders WHERE chat_id = @chat_id AND status IN ('pending', 'sending') AND schedule IS NULL) < @max_pending
  AND (SELECT count(*) FROM reminders WHERE chat_id = @chat_id AND created_at > now() - interval '1 hour') < @max_per_hour
RETURNING id

-- name: claimReminders
-- claimReminders takes up to $2 due reminders for owner $1: pending ones,
-- and ones another process claimed but died before marking sent. SKIP LOCKED
-- lets several processes claim at once, each getting different rows.
UPDATE reminders r
SET status = 'sending', owner_id = $1, claimed_at = now(), attempts = r.attempts + 1
FROM (SELECT id FROM reminders
      WHERE due_at <= now() AND kind = 'reminder'
        AND (status = 'pending' OR (status = 'sending' AND NOT membot_owner_alive(owner_id)))
      ORDER BY due_at, id LIMIT $2 FOR UPDATE SKIP LOCKED) due
WHERE r.id = due.id
RETURNING r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce((SELECT language_code FROM users u WHERE u.telegram_user_id = r.telegram_user_id), '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs

-- name: markReminderSent
-- markReminderSent marks reminder @id sent as Telegram message @telegram_message_id; one
-- with a schedule waits again, for its next occurrence @due_at.
UPDATE reminders SET status = CASE WHEN @due_at::timestamptz IS NULL THEN 'sent' ELSE 'pending' END,
		due_at = coalesce(@due_at, due_at), owner_id = NULL, runs = runs + 1, last_run_at = now(), sent_at = now(), late = @late,
		telegram_message_id = NULLIF(@telegram_message_id::bigint, 0), error = NULL WHERE id = @id

-- name: releaseReminder
UPDATE reminders SET status = $2, owner_id = NULL, error = $3 WHERE id = $1

-- name: nextReminderDue
SELECT min(due_at) FROM reminders
		WHERE status = 'pending' OR (status = 'sending' AND NOT membot_owner_alive(owner_id))

-- name: chatReminders
SELECT r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce((SELECT language_code FROM users u WHERE u.telegram_user_id = r.telegram_user_id), '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs FROM reminders r
		WHERE chat_id = $1 AND status = 'pending' AND schedule IS NULL ORDER BY due_at, id

-- name: cancelReminders
UPDATE reminders r SET status = 'cancelled' FROM (
			SELECT id, row_number() OVER (ORDER BY due_at, id) AS n
			FROM reminders WHERE chat_id = $1 AND status = 'pending' AND schedule IS NULL) numbered
		WHERE r.id = numbered.id AND (cardinality($2::int[]) = 0 OR numbered.n = ANY($2::int[]))
		  AND ($3::bigint = 0 OR r.telegram_user_id = $3)
		RETURNING r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce((SELECT language_code FROM users u WHERE u.telegram_user_id = r.telegram_user_id), '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs

