"""Messages leaving a process: the Dramatiq broker and queues, webhooks, Web Push."""
