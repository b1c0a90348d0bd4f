"""Who may act and read: tokens, player keys, a request's bearer, the ops-read record."""
