SELECT llm_call_id, data, mime_type, revised_prompt FROM drawn_pictures
WHERE chat_id = $1 AND update_id = $2 AND prompt = $3 ORDER BY llm_call_id LIMIT 1
