"""Who has the page open, per chat: read by the Telegram side to pause hand edits nobody looks at.

While a page's WebSocket is open, the process serving it keeps one field in the chat's hash
(`storage.keys.pages_key`): ``<user id>:<socket id>`` -> the unix time it lapses. The process refreshes its
fields every `REFRESH` seconds and removes a field when its socket closes; a process that dies leaves
fields that lapse on their own (`PAGE_TTL`), and the hash itself expires when nobody refreshes it.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from storage.keys import ChatRef, pages_key

PAGE_TTL = 60.0  # seconds a page counts as open after its last refresh
REFRESH = 20.0  # seconds between refreshes (the WebSocket's ping interval too)
HASH_TTL = 120  # seconds the hash outlives its last refresh

Listener = Callable[[ChatRef, str, bool], Awaitable[None]]  # (chat, user id, is_open)


def page_field(user_id: str, socket_id: str) -> str:
    return f"{user_id}:{socket_id}"


async def open_pages(redis: Any, chat: ChatRef, now: float | None = None) -> set[str]:
    """The user ids with a page open on ``chat`` now, in any process. One round trip."""
    now = time.time() if now is None else now
    fields = await redis.hgetall(pages_key(chat))
    users = set()
    for field, until in fields.items():
        field, until = _text(field), _text(until)
        try:
            lapses = float(until)
        except ValueError:
            continue
        if lapses > now:
            users.add(field.rpartition(":")[0])
    return users


async def mark_open(redis: Any, pages: Iterable[tuple[ChatRef, str, str]], now: float | None = None) -> None:
    """(Re)mark open pages, ``(chat, user id, socket id)`` each, until `PAGE_TTL` from now. One round
    trip for all of them."""
    until = repr((time.time() if now is None else now) + PAGE_TTL)
    by_chat: dict[ChatRef, dict[str, str]] = {}
    for chat, user_id, socket_id in pages:
        by_chat.setdefault(chat, {})[page_field(user_id, socket_id)] = until
    if not by_chat:
        return
    pipe = redis.pipeline(transaction=False)
    for chat, fields in by_chat.items():
        pipe.hset(pages_key(chat), mapping=fields)
        pipe.expire(pages_key(chat), HASH_TTL)
    await pipe.execute()


async def mark_closed(redis: Any, chat: ChatRef, user_id: str, socket_id: str) -> None:
    await redis.hdel(pages_key(chat), page_field(user_id, socket_id))


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)
