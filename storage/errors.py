"""The one exception the bot has to know about from storage."""

from __future__ import annotations


class StoreUnavailable(RuntimeError):
    """Redis is unreachable, timing out, loading or failing over: the call did not happen (or its result is
    unknown). The bot tells the chat "the game service is unavailable, try again in a moment"; the store
    reconnects by itself on a later call."""
