-- The inbox knew an update by Telegram's update_id alone, so after the
-- database was pointed at another bot, or at a Bot API server whose ids
-- started again, every new update "was there already" and was dropped.
--
-- Now an update is known by the bot that received it (bot_id, from getMe)
-- and what Telegram sent (digest: the md5 of Telegram's update id and the
-- payload as first stored): the same update delivered again is still
-- stored once. An update
-- whose id an earlier one took is stored under the next free id instead
-- (update_id stays unique, so messages, events and rollbacks that name an
-- update keep naming one); Telegram's own id is always payload->>'update_id'.
--
-- A migration cannot ask Telegram who the bot is: existing rows get bot_id
-- 0, and the bot adopts them at its next start (queue.Store.AdoptUpdates),
-- so an update delivered again across the upgrade is still known.

-- +goose Up
ALTER TABLE updates ADD COLUMN bot_id bigint NOT NULL DEFAULT 0;
ALTER TABLE updates ADD COLUMN digest uuid;
UPDATE updates SET digest = md5(update_id::text || ':' || payload::text)::uuid;
ALTER TABLE updates ALTER COLUMN digest SET NOT NULL;
CREATE UNIQUE INDEX updates_bot_digest ON updates (bot_id, digest);
CREATE INDEX updates_unadopted ON updates (update_id) WHERE bot_id = 0;

-- +goose Down
DROP INDEX updates_unadopted;
DROP INDEX updates_bot_digest;
ALTER TABLE updates DROP COLUMN digest;
ALTER TABLE updates DROP COLUMN bot_id;
