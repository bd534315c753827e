DELETE FROM drawn_pictures WHERE llm_call_id = $1
