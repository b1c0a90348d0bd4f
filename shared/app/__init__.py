"""Application layer both services share: loading seasons from the event store, appending."""
