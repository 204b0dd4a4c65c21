"""What keeps one process running well, around the pure decisions: the turn-timer loop, the AI worker pool,
delivered-screen marks, unusable stored records, rate limits, metrics, logs and their redaction, settings
from the environment, small caches, and the garbage collector's tuning."""
