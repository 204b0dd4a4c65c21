"""Moving a chat to a new id: a Telegram group that becomes a supergroup keeps its game, messages, settings
and stats.

The old and new chats hash to different cluster slots, so this cannot be one script. It is ordered to be safe
to repeat: copy everything to the new chat, move the armed timer and the running-games entry, then delete
the old keys. A crash midway leaves the old chat in place and a rerun copies again; once the old chat is
gone a rerun does nothing. The copy replaces whatever the new chat held (a brand-new supergroup holds
nothing of ours).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from storage import keys as k
from storage.keys import ChatRef
from storage.store import text

if TYPE_CHECKING:
    from storage.store import RedisGameStore

BOARDS = (*k.LEADERBOARDS, "rank")


async def read_chat(store: RedisGameStore, chat: ChatRef) -> dict[str, Any]:
    """Everything stored under one chat, in two round trips."""
    pipe = store.redis.pipeline()
    pipe.get(k.version_key(chat))
    pipe.get(k.state_key(chat))
    pipe.pttl(k.state_key(chat))
    pipe.hgetall(k.messages_key(chat))
    pipe.pttl(k.messages_key(chat))
    pipe.hgetall(k.meta_key(chat))
    for board in BOARDS:
        pipe.zrange(k.leaderboard_key(chat, board), 0, -1, withscores=True)
    version, state, state_ttl, messages, messages_ttl, meta, *boards = await store._roundtrip(pipe.execute())
    data: dict[str, Any] = {
        "version": int(version or 0),
        "state": text(state),
        "state_ttl": int(state_ttl),
        "messages": {text(a): text(b) for a, b in messages.items()},
        "messages_ttl": int(messages_ttl),
        "meta": {text(a): text(b) for a, b in meta.items()},
        "boards": {
            board: [(text(m), s) for m, s in rows] for board, rows in zip(BOARDS, boards, strict=True)
        },
        "players": {},
    }
    users = [member for member, _ in data["boards"]["games"]]
    if users:
        pipe = store.redis.pipeline()
        for user in users:
            pipe.hgetall(k.player_key(chat, user))
        rows = await store._roundtrip(pipe.execute())
        data["players"] = {
            u: {text(a): text(b) for a, b in r.items()} for u, r in zip(users, rows, strict=True)
        }
    return data


def chat_keys(chat: ChatRef, users: list[str]) -> list[str]:
    fixed = [k.version_key(chat), k.state_key(chat), k.messages_key(chat), k.meta_key(chat)]
    return fixed + [k.leaderboard_key(chat, b) for b in BOARDS] + [k.player_key(chat, u) for u in users]


async def migrate_chat(store: RedisGameStore, old: ChatRef, new: ChatRef) -> None:
    if old == new:
        return
    data = await read_chat(store, old)
    users = list(data["players"])
    if not data["version"] and not data["meta"] and not users:
        return  # nothing there (or already moved)
    pipe = store.redis.pipeline()
    for key in chat_keys(new, users):
        pipe.delete(key)
    pipe.set(k.version_key(new), data["version"])
    if data["state"] is not None:
        pipe.set(k.state_key(new), data["state"], px=data["state_ttl"] if data["state_ttl"] > 0 else None)
    if data["messages"]:
        pipe.hset(k.messages_key(new), mapping=data["messages"])
        if data["messages_ttl"] > 0:
            pipe.pexpire(k.messages_key(new), data["messages_ttl"])
    if data["meta"]:
        pipe.hset(k.meta_key(new), mapping=data["meta"])
    for board, rows in data["boards"].items():
        if rows:
            pipe.zadd(k.leaderboard_key(new, board), dict(rows))
    for user, row in data["players"].items():
        if row:
            pipe.hset(k.player_key(new, user), mapping=row)
    await store._roundtrip(pipe.execute())

    if (armed := data["meta"].get("timer")) is not None:
        old_member, new_member = k.timer_member(old, int(armed)), k.timer_member(new, int(armed))
        due = await store._roundtrip(store.redis.zscore(k.timers_key(old.platform), old_member))
        if due is not None:
            pipe = store.redis.pipeline()
            pipe.zadd(k.timers_key(new.platform), {new_member: due})
            pipe.zrem(k.timers_key(old.platform), old_member)
            await store._roundtrip(pipe.execute())

    until = await store._roundtrip(store.redis.zscore(k.running_key(old.platform), str(old)))
    if until is not None:  # a running game: listed under its new id for a process starting up
        pipe = store.redis.pipeline()
        pipe.zadd(k.running_key(new.platform), {str(new): until})
        pipe.zrem(k.running_key(old.platform), str(old))
        await store._roundtrip(pipe.execute())

    pipe = store.redis.pipeline()
    for key in chat_keys(old, users):
        pipe.delete(key)
    await store._roundtrip(pipe.execute())
