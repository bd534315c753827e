SELECT DISTINCT chat_id FROM updates WHERE state <> 'done'
