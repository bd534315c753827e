-- Tasks: rows of reminders with a schedule (kind 'task' runs a turn,
-- kind 'reminder' sends its text). A chat's are listed for /tasks by id.

-- name: addTask
-- addTask adds a scheduled row unless it would pass the bounds (scheduled
-- ones for the user, for the chat, rows of reminders set in the chat an
-- hour); then it returns no row.
INSERT INTO reminders (telegram_user_id, chat_id, text, due_at, source_message_id, message_thread_id, kind, schedule, time_zone)
SELECT @telegram_user_id, @chat_id, @text, @due_at, NULLIF(@source_message_id::bigint, 0),
	NULLIF(@message_thread_id::bigint, 0), @kind, @schedule, @time_zone
WHERE (SELECT count(*) FROM reminders WHERE telegram_user_id = @telegram_user_id AND schedule IS NOT NULL
		AND status IN ('pending', 'sending', 'paused')) < @max_per_user
  AND (SELECT count(*) FROM reminders WHERE chat_id = @chat_id AND schedule IS NOT NULL
		AND status IN ('pending', 'sending', 'paused')) < @max_per_chat
  AND (SELECT count(*) FROM reminders WHERE chat_id = @chat_id AND created_at > now() - interval '1 hour') < @max_per_hour
RETURNING id

-- name: dueTasks
-- dueTasks locks up to $1 tasks due now, oldest due first; SKIP LOCKED
-- lets several processes take different ones. The transaction that read
-- them enqueues each run and moves the row on (enqueueRun).
SELECT r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce(u.language_code, '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs,
	coalesce(u.username, '') AS username, coalesce(u.first_name, '') AS first_name, coalesce(u.last_name, '') AS last_name
FROM reminders r LEFT JOIN users u ON u.telegram_user_id = r.telegram_user_id
WHERE r.kind = 'task' AND r.status = 'pending' AND r.due_at <= now()
ORDER BY r.due_at, r.id LIMIT $1 FOR UPDATE OF r SKIP LOCKED

-- name: enqueueRun
-- enqueueRun puts a task's run in the inbox of its chat as an update of
-- the bot with a negative id of its own.
INSERT INTO updates (bot_id, update_id, chat_id, payload, digest, task_id)
VALUES (@bot_id, nextval('scheduled_runs'), @chat_id, @payload::jsonb, gen_random_uuid(), @task_id)

-- name: advanceTask
-- advanceTask moves task $1 to its next occurrence $2, or ends it (status
-- 'sent') when there is none.
UPDATE reminders SET runs = runs + 1, last_run_at = now(), late = $3,
	due_at = coalesce($2, due_at), status = CASE WHEN $2::timestamptz IS NULL THEN 'sent' ELSE 'pending' END
WHERE id = $1

-- name: taskStopped
-- taskStopped tells whether task $1 was paused or deleted (and so its run
-- queued before that is not to be answered).
SELECT EXISTS (SELECT 1 FROM reminders WHERE id = $1 AND status IN ('paused', 'cancelled'))

-- name: chatTasks
SELECT r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce((SELECT language_code FROM users u WHERE u.telegram_user_id = r.telegram_user_id), '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs
FROM reminders r
WHERE r.chat_id = $1 AND r.schedule IS NOT NULL AND r.status IN ('pending', 'sending', 'paused')
ORDER BY r.id

-- name: setTaskStatus
-- setTaskStatus pauses (status 'paused'), resumes ('pending', due at
-- due_at) or deletes ('cancelled') a task of the chat, when the user set
-- it (0: whoever did). A resumed task runs next at its next occurrence,
-- never for the ones it missed while paused; only a paused task is resumed.
UPDATE reminders r SET status = @status, due_at = coalesce(@due_at, r.due_at), owner_id = NULL
WHERE r.id = @id AND r.chat_id = @chat_id AND r.schedule IS NOT NULL AND r.status IN ('pending', 'paused')
  AND (@status <> 'pending' OR r.status = 'paused')
  AND (@telegram_user_id::bigint = 0 OR r.telegram_user_id = @telegram_user_id)
RETURNING r.id, r.telegram_user_id, r.chat_id, r.text, r.due_at,
	coalesce(r.source_message_id, 0) AS source_message_id, r.attempts,
	coalesce((SELECT language_code FROM users u WHERE u.telegram_user_id = r.telegram_user_id), '') AS language_code,
	coalesce(r.message_thread_id, 0) AS message_thread_id,
	r.kind, coalesce(r.schedule, '') AS schedule, coalesce(r.time_zone, '') AS time_zone, r.status, r.runs

-- name: dropUserTasks
-- dropUserTasks deletes (cancels) every scheduled row of user $1 not yet
-- done, in every chat: what a user the bot no longer serves loses.
UPDATE reminders SET status = 'cancelled' WHERE telegram_user_id = $1 AND schedule IS NOT NULL AND status IN ('pending', 'paused')
