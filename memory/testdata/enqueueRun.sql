INSERT INTO updates (bot_id, update_id, chat_id, payload, digest, task_id)
VALUES ($1, nextval('scheduled_runs'), $3, $4::jsonb, gen_random_uuid(), $2)
