"""Ops and audit tools over recorded seasons: export and check, replay, explain, shadow."""
