"""Entry points: the CLI, the HTTP gateway, the worker bootstraps, the local stack launcher and
metrics, above the services; `entrypoints.bootstrap` builds every long-lived object."""
