"""Worker bootstrap: `dramatiq entrypoints.notify_worker --queues notifications` (issue 25):
the notifications queue's actors and the notifier that feeds it (entrypoints/notify_boot.py)."""

from __future__ import annotations

from entrypoints import bootstrap, notify_boot
from entrypoints.cli_args import settings_or_refusal

_settings = settings_or_refusal("entrypoints.notify_worker")  # refused: one line, exit 2
notify_boot.lower_priority(_settings.notify_nice)  # first: every thread started later inherits it
bootstrap.configure(_settings)
_broker = bootstrap.worker_broker(_settings)
deliver, fan_out = notify_boot.declare(_settings, _broker)
notifier = notify_boot.start_notifier(_settings, fan_out)
