SELECT membot_enable_vectors()
