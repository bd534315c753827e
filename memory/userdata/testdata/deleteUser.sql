SELECT name, deleted FROM membot_delete_user($1)
