SELECT mode FROM conversations WHERE id = $1
