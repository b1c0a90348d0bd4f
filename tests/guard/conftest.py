"""The fault-skip guard's own tests run pytest inside pytest: they need the pytester plugin.

Only this directory's tests use it; pytest refuses `pytest_plugins` in a conftest below the
rootdir, so the plugin is loaded when this conftest is (collection of tests/guard).
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")
