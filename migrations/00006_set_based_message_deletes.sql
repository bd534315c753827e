-- Deleting many messages at once stays fast: /new on a conversation of
-- 100,000 messages took 1.5 s, 90% of it in the foreign keys that point at
-- messages from memories, reminders and pending_approvals. PostgreSQL checks
-- such keys once per deleted row (300,000 lookups here). The same "set the
-- reference to NULL when its message goes" is done below once per DELETE
-- statement, for all its rows together; the rows that reference messages
-- are few, so their ids are found through the indexes on those columns.
-- (What the keys also did, refuse a reference to a message that does not
-- exist, the bot never needs: it only refers to rows it has just stored.)

-- +goose Up
ALTER TABLE memories DROP CONSTRAINT memories_source_message_id_fkey;
ALTER TABLE reminders DROP CONSTRAINT reminders_source_message_id_fkey;
ALTER TABLE pending_approvals DROP CONSTRAINT pending_approvals_assistant_message_id_fkey;

-- +goose StatementBegin
CREATE FUNCTION membot_forget_deleted_messages() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    lo bigint;
    hi bigint;
BEGIN
    SELECT min(id), max(id) INTO lo, hi FROM gone;
    -- The range lets each update read its index from lo to hi only.
    UPDATE memories SET source_message_id = NULL
    WHERE source_message_id BETWEEN lo AND hi AND source_message_id IN (SELECT id FROM gone);
    UPDATE reminders SET source_message_id = NULL
    WHERE source_message_id BETWEEN lo AND hi AND source_message_id IN (SELECT id FROM gone);
    UPDATE pending_approvals SET assistant_message_id = NULL
    WHERE assistant_message_id BETWEEN lo AND hi AND assistant_message_id IN (SELECT id FROM gone);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER messages_deleted AFTER DELETE ON messages
    REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION membot_forget_deleted_messages();

-- +goose Down
DROP TRIGGER messages_deleted ON messages;
DROP FUNCTION membot_forget_deleted_messages();
ALTER TABLE pending_approvals ADD CONSTRAINT pending_approvals_assistant_message_id_fkey
    FOREIGN KEY (assistant_message_id) REFERENCES messages (id) ON DELETE SET NULL;
ALTER TABLE reminders ADD CONSTRAINT reminders_source_message_id_fkey
    FOREIGN KEY (source_message_id) REFERENCES messages (id) ON DELETE SET NULL;
ALTER TABLE memories ADD CONSTRAINT memories_source_message_id_fkey
    FOREIGN KEY (source_message_id) REFERENCES messages (id) ON DELETE SET NULL;
