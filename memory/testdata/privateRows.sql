SELECT id, content || coalesce(' ' || tool_calls::text, '') FROM messages
WHERE conversation_id IN (SELECT id FROM conversations WHERE chat_id = $1) AND NOT forgotten
