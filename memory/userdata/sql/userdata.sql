-- Export and Forget find a user's tables when they run (any table with a
-- telegram_user_id or chat_id column, so that tables added later are
-- covered): the SQL functions of migration 00030 do it. The other inbox
-- rows that name a user somewhere (a reply quotes their message, a mention
-- names them) are scrubbed (updatesNamingUser).

-- name: userHistory
-- userHistory and chatHistory are the newest $2 rows of
-- conversation_log of user $1 or of chat $1, newest first, each at the
-- time it was written.
SELECT message_id, written_at, chat_id, role, content, coalesce(tool_name, '')
		FROM conversation_log WHERE telegram_user_id = $1 ORDER BY message_id DESC LIMIT $2

-- name: chatHistory
SELECT message_id, written_at, chat_id, role, content, coalesce(tool_name, '')
		FROM conversation_log WHERE chat_id = $1 ORDER BY message_id DESC LIMIT $2

-- name: exportUser
-- exportUser is every row of user $1, table by table, as JSON: exactly
-- what deleteUser deletes.
SELECT name, rows FROM membot_export_user($1)

-- name: deleteUser
SELECT name, deleted FROM membot_delete_user($1)

-- name: lockUser
SELECT FROM users WHERE telegram_user_id = $1 FOR UPDATE

-- name: lockConversations
SELECT FROM conversations WHERE chat_id = $1 OR telegram_user_id = $1 OR reset_at IS NOT NULL
			FOR UPDATE

-- name: disownGroupConversations
UPDATE conversations SET telegram_user_id = 0
			WHERE telegram_user_id = $1 AND chat_id <> $1

-- name: updatesNamingUser
SELECT update_id, payload FROM updates
		WHERE NOT (chat_id = $1 OR jsonb_path_exists(payload, '$.*.from ? (@.id == $uid)', jsonb_build_object('uid', $1::bigint))) AND jsonb_path_exists(payload, '$.** ? (@.id == $uid)', jsonb_build_object('uid', $1::bigint)) FOR UPDATE

-- name: setScrubbedPayload
-- setScrubbedPayload stores an update's payload with the user taken out
-- (scrubUpdates).
UPDATE updates SET payload = $2 WHERE update_id = $1
