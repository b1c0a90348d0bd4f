"""The pure rules engine of Seksenbir: no I/O, no clock, no global randomness (R-12)."""
