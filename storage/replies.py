"""Reading Redis replies: whatever the client decodes, and the flat lists Lua scripts return.

Apart from the store so that every module reading replies (the store, `storage.migrate`, `storage.pace`)
can share them without importing the store."""

from __future__ import annotations

from typing import Any


def text(value: Any) -> Any:
    """Decode bytes (from a client made without decode_responses, or a reply read raw because it held bytes
    that are not UTF-8: those read as U+FFFD); leave everything else alone."""
    return value.decode(errors="replace") if isinstance(value, bytes) else value


def pairs(flat: list[Any]) -> dict[str, str]:
    """A Lua HGETALL reply (flat list) as a dict."""
    return {text(flat[i]): text(flat[i + 1]) for i in range(0, len(flat), 2)}
