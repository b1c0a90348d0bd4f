"""Answer shapes both APIs build by one pure function each, so the two cannot drift."""
