SELECT membot_set_timezone($1)
