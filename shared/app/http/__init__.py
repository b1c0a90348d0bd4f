"""The HTTP edge both APIs share: bodies, problems, OpenAPI, ETag/HEAD, limits, docs UI."""
