"""The season repository: load and fold, append at a version, one writer, retries."""
