SELECT coalesce(model, '') FROM conversations WHERE id = $1
