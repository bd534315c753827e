INSERT INTO drawn_pictures (llm_call_id, chat_id, update_id, prompt, data, mime_type, revised_prompt)
VALUES ($1, $2, $3, $4, $5, $6, $7)
