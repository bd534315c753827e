-- A picture drawn for a chat (/image, the generate_image tool) is a model
-- call of its own: purpose 'image', its cost IMAGE_TOKENS in prompt_tokens.
-- The new check is added NOT VALID and then validated, so the table is not
-- locked against writes while its rows are read.

-- +goose Up
ALTER TABLE llm_calls DROP CONSTRAINT llm_calls_purpose_known;
ALTER TABLE llm_calls ADD CONSTRAINT llm_calls_purpose_known
    CHECK (purpose IN ('chat', 'transcription', 'speech', 'image', 'facts', 'summary', 'embeddings')) NOT VALID;
ALTER TABLE llm_calls VALIDATE CONSTRAINT llm_calls_purpose_known;

-- +goose Down
DELETE FROM llm_calls WHERE purpose = 'image';
ALTER TABLE llm_calls DROP CONSTRAINT llm_calls_purpose_known;
ALTER TABLE llm_calls ADD CONSTRAINT llm_calls_purpose_known
    CHECK (purpose IN ('chat', 'transcription', 'speech', 'facts', 'summary', 'embeddings'));
