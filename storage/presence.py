"""Who has the page open, per chat: written by the web front end, read by the Telegram side to pause hand
edits nobody looks at. Its keys and its Lua live here with the store's (as `storage.pace`'s do): the adapters
call these functions and never run a script of their own.

While a page's WebSocket is open, the process serving it keeps one field in the chat's hash
(`storage.keys.pages_key`): ``<user id>:<socket id>`` -> the unix time it lapses. The process refreshes its
fields every `REFRESH` seconds and removes a field when its socket closes. A process that dies leaves fields
that lapse on their own (`PAGE_TTL`): readers ignore a lapsed field, and every refresh of the chat's hash, by
any process, deletes the lapsed ones in the same step, so a dead process's fields are gone within a refresh
of the chat (and the hash itself expires when nobody refreshes it).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from redis.exceptions import NoScriptError

from storage.chats import ChatRef
from storage.keys import pages_key
from storage.replies import text
from storage.scripts import Script

PAGE_TTL = 60.0  # seconds a page counts as open after its last refresh
REFRESH = 20.0  # seconds between refreshes (the WebSocket's ping interval too)
HASH_TTL = 120  # seconds the hash outlives its last refresh

# KEYS: the chat's pages hash. ARGV: now, the time the marked fields lapse, the hash's TTL, the fields to
# mark. Deletes the fields lapsed by now (a dead process's; Redis 6.2 has no per-field expiry), then marks.
MARK_OPEN = Script(
    "mark_open",
    """
local now = tonumber(ARGV[1])
local held = redis.call('HGETALL', KEYS[1])
for i = 1, #held, 2 do
  local lapses = tonumber(held[i + 1])
  if not lapses or lapses <= now then redis.call('HDEL', KEYS[1], held[i]) end
end
for i = 4, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], ARGV[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 0
""",
)


def page_field(user_id: str, socket_id: str) -> str:
    return f"{user_id}:{socket_id}"


async def open_pages(redis: Any, chat: ChatRef, now: float | None = None) -> set[str]:
    """The user ids with a page open on ``chat`` now, in any process. One round trip."""
    now = time.time() if now is None else now
    fields = await redis.hgetall(pages_key(chat))
    users = set()
    for field, until in fields.items():
        field, until = str(text(field)), str(text(until))
        try:
            lapses = float(until)
        except ValueError:
            continue
        if lapses > now:
            users.add(field.rpartition(":")[0])
    return users


async def mark_open(redis: Any, pages: Iterable[tuple[ChatRef, str, str]], now: float | None = None) -> None:
    """(Re)mark open pages, ``(chat, user id, socket id)`` each, until `PAGE_TTL` from now, and delete the
    lapsed fields of their chats. One round trip for all of them (a second, once, when Redis does not know
    the script yet)."""
    now = time.time() if now is None else now
    by_chat: dict[ChatRef, list[str]] = {}
    for chat, user_id, socket_id in pages:
        by_chat.setdefault(chat, []).append(page_field(user_id, socket_id))
    if not by_chat:
        return
    args = {chat: [repr(now), repr(now + PAGE_TTL), HASH_TTL, *fields] for chat, fields in by_chat.items()}
    try:
        await _mark(redis, args, known=True)
    except NoScriptError:  # a new or restarted server: the same marks with the script's text
        await _mark(redis, args, known=False)


async def _mark(redis: Any, args: dict[ChatRef, list[Any]], known: bool) -> None:
    pipe = redis.pipeline(transaction=False)
    for chat, chat_args in args.items():
        if known:
            pipe.evalsha(MARK_OPEN.sha, 1, pages_key(chat), *chat_args)
        else:
            pipe.eval(MARK_OPEN.source, 1, pages_key(chat), *chat_args)
    await pipe.execute()


async def mark_closed(redis: Any, chat: ChatRef, user_id: str, socket_id: str) -> None:
    await redis.hdel(pages_key(chat), page_field(user_id, socket_id))
