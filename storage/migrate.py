"""Moving a chat to a new id: a Telegram group that becomes a supergroup keeps its game, messages, settings
and stats (every season's, with ratings, trends and head-to-head counts).

The old and new chats hash to different cluster slots, so this cannot be one script. It is ordered to be safe
to repeat: copy everything to the new chat, move the armed timer and the running-games entry, then delete
the old keys. A crash midway leaves the old chat in place and a rerun copies again; once the old chat is
gone a rerun does nothing. The copy replaces whatever the new chat held (a brand-new supergroup holds
nothing of ours).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol, TypeVar

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from storage import keys as k
from storage.chats import ChatRef
from storage.replies import text

T = TypeVar("T")


class Connection(Protocol):
    """What moving a chat needs of the store (`RedisGameStore` is one): its client, and its round trips, which
    count and turn an outage into StoreUnavailable. A protocol, so this module never imports the store that
    calls it."""

    redis: aioredis.Redis | RedisCluster

    async def roundtrip(self, request: Awaitable[T]) -> T: ...


BOARDS = (*k.LEADERBOARDS, "rank", "rating")


async def read_chat(store: Connection, chat: ChatRef) -> dict[str, Any]:
    """Everything stored under one chat: two round trips, then two per season of stats."""
    pipe = store.redis.pipeline()
    pipe.get(k.version_key(chat))
    pipe.get(k.state_key(chat))
    pipe.pttl(k.state_key(chat))
    pipe.hgetall(k.messages_key(chat))
    pipe.pttl(k.messages_key(chat))
    pipe.hgetall(k.meta_key(chat))
    pipe.hgetall(k.ratings_key(chat))
    version, state, state_ttl, messages, messages_ttl, meta, ratings = await store.roundtrip(pipe.execute())
    data: dict[str, Any] = {
        "version": int(version or 0),
        "state": text(state),
        "state_ttl": int(state_ttl),
        "messages": {text(a): text(b) for a, b in messages.items()},
        "messages_ttl": int(messages_ttl),
        "meta": {text(a): text(b) for a, b in meta.items()},
        "ratings": {text(a): text(b) for a, b in ratings.items()},
    }
    seasons = int(data["meta"].get("season", 1))
    data["seasons"] = {season: await read_season(store, chat, season) for season in range(1, seasons + 1)}
    return data


async def read_season(store: Connection, chat: ChatRef, season: int) -> dict[str, Any]:
    """One season's boards, and each player's totals, trend and head-to-head counts: two round trips."""
    pipe = store.redis.pipeline()
    for board in BOARDS:
        pipe.zrange(k.leaderboard_key(chat, board, season), 0, -1, withscores=True)
    boards = await store.roundtrip(pipe.execute())
    data: dict[str, Any] = {
        "boards": {
            board: [(text(m), s) for m, s in rows] for board, rows in zip(BOARDS, boards, strict=True)
        },
        "players": {},
    }
    users = [member for member, _ in data["boards"]["games"]]
    if users:
        pipe = store.redis.pipeline()
        for user in users:
            pipe.hgetall(k.player_key(chat, user, season))
            pipe.lrange(k.trend_key(chat, user, season), 0, -1)
            pipe.hgetall(k.versus_key(chat, user, season))
        rows = await store.roundtrip(pipe.execute())
        data["players"] = {
            user: (
                {text(a): text(b) for a, b in row.items()},
                [text(value) for value in trend],
                {text(a): text(b) for a, b in versus.items()},
            )
            for user, row, trend, versus in zip(users, rows[::3], rows[1::3], rows[2::3], strict=True)
        }
    return data


def chat_keys(chat: ChatRef, seasons: dict[int, dict[str, Any]]) -> list[str]:
    fixed = [
        k.version_key(chat),
        k.state_key(chat),
        k.messages_key(chat),
        k.meta_key(chat),
        k.ratings_key(chat),
    ]
    for season, data in seasons.items():
        fixed += [k.leaderboard_key(chat, board, season) for board in BOARDS]
        for user in data["players"]:
            fixed += [k.player_key(chat, user, season), k.trend_key(chat, user, season)]
            fixed.append(k.versus_key(chat, user, season))
    return fixed


async def migrate_chat(store: Connection, old: ChatRef, new: ChatRef) -> None:
    if old == new:
        return
    data = await read_chat(store, old)
    seasons = data["seasons"]
    if not data["version"] and not data["meta"] and not seasons[1]["players"]:
        return  # nothing there (or already moved)
    pipe = store.redis.pipeline()
    for key in chat_keys(new, seasons):
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
    if data["ratings"]:
        pipe.hset(k.ratings_key(new), mapping=data["ratings"])
    for season, stats in seasons.items():
        for board, rows in stats["boards"].items():
            if rows:
                pipe.zadd(k.leaderboard_key(new, board, season), dict(rows))
        for user, (row, trend, versus) in stats["players"].items():
            if row:
                pipe.hset(k.player_key(new, user, season), mapping=row)
            if trend:
                pipe.rpush(k.trend_key(new, user, season), *trend)
            if versus:
                pipe.hset(k.versus_key(new, user, season), mapping=versus)
    await store.roundtrip(pipe.execute())

    if (armed := data["meta"].get("timer")) is not None:
        old_member, new_member = k.timer_member(old, int(armed)), k.timer_member(new, int(armed))
        due = await store.roundtrip(store.redis.zscore(k.timers_key(old.platform), old_member))
        if due is not None:
            pipe = store.redis.pipeline()
            pipe.zadd(k.timers_key(new.platform), {new_member: due})
            pipe.zrem(k.timers_key(old.platform), old_member)
            await store.roundtrip(pipe.execute())

    until = await store.roundtrip(store.redis.zscore(k.running_key(old.platform), str(old)))
    if until is not None:  # a running game: listed under its new id for a process starting up
        pipe = store.redis.pipeline()
        pipe.zadd(k.running_key(new.platform), {str(new): until})
        pipe.zrem(k.running_key(old.platform), str(old))
        await store.roundtrip(pipe.execute())

    pipe = store.redis.pipeline()
    for key in chat_keys(old, seasons):
        pipe.delete(key)
    await store.roundtrip(pipe.execute())
