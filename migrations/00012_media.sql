-- Voice messages, photos and files: what a model call was for
-- (the chat, a transcription, speech) and, for a transcription, how many
-- seconds of audio it heard, so admins can sum them:
--   SELECT telegram_user_id, sum(audio_seconds) FROM llm_calls
--   WHERE purpose = 'transcription' GROUP BY 1;

-- +goose Up
ALTER TABLE llm_calls ADD COLUMN purpose text NOT NULL DEFAULT 'chat';
ALTER TABLE llm_calls ADD COLUMN audio_seconds double precision;

-- +goose Down
ALTER TABLE llm_calls DROP COLUMN audio_seconds;
ALTER TABLE llm_calls DROP COLUMN purpose;
