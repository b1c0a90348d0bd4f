"""Application layer and HTTP edge both services share, one subpackage per concern (ADR-114)."""
