"""The game store: one atomic compare-and-set per applied action, on Redis.

The service loads a chat (one round trip), computes the new state, and saves it with the version it loaded
(one round trip, a Lua script). A save whose version moved on returns None (`save_or_current`: the current
record, in the same reply): the caller decides again, so a move is applied once or refused, never twice. A
process that saved a chat's last state may skip the load and save against the version it saved: the
compare-and-set proves its copy is still the stored one. Stats and the archive ride in the same script as the
final save, guarded by a per-game marker, so a finished game is counted exactly once.

On Redis Cluster one chat's keys share a slot (see keys.py), but the global timer index, the index of running
games and the archive live in other slots, and a script may only touch one slot. There the save script does
the chat's part (state, version, stats, and the chat's own record of which version has a deadline) and a
second pipeline moves the chat's member in `durak:timers:<platform>`, lists it in `durak:running:<platform>`
and writes the archive. We chose this over per-chat timer sets because the
timer claim must stay one atomic pop over one sorted set. The cost: 2 round trips per save on a cluster
instead of 1, and if a process dies between the two steps that one deadline (its turn waits for the next
action) or that one archive entry is lost, while stats stay exact: a stale member left behind fires for an old
version and does nothing (a running-games entry left behind is dropped when its game would have expired).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Sequence
from typing import Any, Protocol, TypeVar

import redis.asyncio as aioredis
from redis import exceptions as rex
from redis.asyncio.cluster import RedisCluster
from redis.client import NEVER_DECODE

from storage import keys as k
from storage.chats import ChatRef
from storage.errors import StoreUnavailable
from storage.migrate import migrate_chat
from storage.models import (
    ChatRecord,
    GameOutcome,
    LastDurak,
    PersonalRecord,
    PlayerOutcome,
    PlayerStats,
    Rival,
    SaveRequest,
)
from storage.replies import pairs, text
from storage.save import ARCHIVE_TTL, REQUEST_TTL, running_until, save_args, save_keys
from storage.scripts import (
    CLAIM_TIMERS,
    LOAD,
    NEW_SEASON,
    QUARANTINE,
    QUARANTINE_COUNTING,
    REPLACE_WORDS,
    REQUEST_OUTCOME,
    SAVE,
    SAVE_COUNTING,
    SET_MESSAGES,
    Script,
)

__all__ = [
    "ARCHIVE_TTL", "ChatRecord", "ChatRef", "GameOutcome", "GameStore", "LastDurak", "PlayerOutcome",
    "PlayerStats", "QUARANTINE_TTL", "REQUEST_TTL", "RedisGameStore", "SaveRequest", "StoreUnavailable",
]  # fmt: skip

QUARANTINE_TTL = 7 * 24 * 3600  # a state set aside is kept a week, for whoever debugs it
T = TypeVar("T")

# Everything that means "Redis did not answer (properly) right now", as opposed to a bug in our commands.
UNAVAILABLE: tuple[type[BaseException], ...] = (
    rex.ConnectionError,  # includes BusyLoadingError, AuthenticationError, MaxConnectionsError
    rex.TimeoutError,
    rex.ClusterDownError,  # includes MasterDownError
    rex.TryAgainError,
    rex.ReadOnlyError,  # a replica during a failover
    rex.OutOfMemoryError,  # maxmemory reached: nothing can be saved until an operator acts
    rex.SlotNotCoveredError,
    OSError,
    TimeoutError,
)


class GameStore(Protocol):
    """What the game service needs from storage. `RedisGameStore` is the one implementation (its `save` is
    `save_or_current` with None for a conflict, for callers that do not decide again)."""

    round_trips: int

    async def load(self, chat: ChatRef) -> ChatRecord: ...

    async def save_or_current(self, chat: ChatRef, request: SaveRequest) -> int | ChatRecord: ...

    async def running_chats(self, platform: str, now: float | None = None) -> list[ChatRef]: ...

    async def quarantine(self, chat: ChatRef, version: int) -> int | ChatRecord: ...

    async def replace_chat_words(self, chat: ChatRef, read: str, words: str) -> bool: ...

    async def stats(self, chat: ChatRef, limit: int = 20, season: int = 1) -> list[PlayerStats]: ...

    async def most_often_durak(self, chat: ChatRef, limit: int = 3, season: int = 1) -> list[PlayerStats]: ...

    async def personal(self, chat: ChatRef, user_id: str, season: int = 1) -> PersonalRecord: ...

    async def new_season(self, chat: ChatRef) -> int: ...

    async def set_messages(self, chat: ChatRef, updates: dict[str, str | None]) -> None: ...

    async def set_chat_settings(
        self, chat: ChatRef, words: str | None = None, lang: str | None = None
    ) -> None: ...

    async def claim_due_timers(
        self,
        now: float,
        limit: int = 100,
        *,
        platforms: Sequence[str],
        lease: float = 0.0,
        done: Sequence[tuple[ChatRef, int]] = (),
    ) -> list[tuple[ChatRef, int]]: ...

    async def requeue_timer(self, chat: ChatRef, version: int, due: float) -> None: ...

    async def archived_game(self, game_id: str) -> str | None: ...

    async def analysis(self, game_id: str) -> str | None: ...

    async def save_analysis(self, game_id: str, analysis: str) -> bool: ...

    async def migrate_chat(self, old: ChatRef, new: ChatRef) -> None: ...

    async def ping(self) -> None: ...


def parse_rating(value: str) -> tuple[float, float]:
    """A rating as the ratings hash keeps it, "mu sigma"."""
    mu, sigma = value.split()
    return float(mu), float(sigma)


class RedisGameStore:
    """`GameStore` on one Redis (or a Redis Cluster): give it a `redis.asyncio` client.

    `round_trips` counts requests sent to Redis (a pipeline counts once), so a benchmark can report round
    trips per applied action."""

    def __init__(
        self,
        redis: aioredis.Redis | RedisCluster,
        *,
        call_timeout: float = 10.0,
        counting_versions: bool = False,
    ) -> None:
        """``counting_versions``: versions 1, 2, 3... instead of following the server's clock (`scripts.
        NEXT_VERSION`), for tests of the store's other rules that name versions; never for a bot."""
        self.redis = redis
        self.cluster = isinstance(redis, RedisCluster)
        self._save = SAVE_COUNTING if counting_versions else SAVE
        self._quarantine = QUARANTINE_COUNTING if counting_versions else QUARANTINE
        self.round_trips = 0
        self.call_timeout = call_timeout  # a last resort: the client's own socket timeouts come first

    async def roundtrip(self, request: Awaitable[T]) -> T:
        """Send one request (a command, a pipeline's `execute()`) and count it in `round_trips`: within
        `call_timeout`, and with every sign of Redis not answering raised as StoreUnavailable."""
        self.round_trips += 1
        try:
            async with asyncio.timeout(self.call_timeout):
                return await request
        except UNAVAILABLE as error:
            raise StoreUnavailable(f"Redis is unavailable: {error}") from error
        except AttributeError as error:
            # redis-py's cluster client closes a node's connections when a MOVED reply makes it reload the
            # slot map; a command in flight on one of them then fails inside the library with this.
            if self.cluster:
                raise StoreUnavailable(f"Redis Cluster connection reset: {error}") from error
            raise

    async def script(self, script: Script, keys: list[str], args: list[Any], *, raw: bool = False) -> Any:
        """EVALSHA, and EVAL once if the server does not know the script yet (new or restarted server).

        `raw`: the reply as bytes, whatever the client decodes (for a reply holding bytes that are not UTF-8,
        which a decoding client refuses with UnicodeDecodeError)."""
        options = {NEVER_DECODE: True} if raw else {}
        try:
            return await self.roundtrip(
                self.redis.execute_command("EVALSHA", script.sha, len(keys), *keys, *args, **options)
                if raw
                else self.redis.evalsha(script.sha, len(keys), *keys, *args)
            )
        except rex.NoScriptError:
            return await self.roundtrip(
                self.redis.execute_command("EVAL", script.source, len(keys), *keys, *args, **options)
                if raw
                else self.redis.eval(script.source, len(keys), *keys, *args)
            )

    async def load(self, chat: ChatRef) -> ChatRecord:
        """The chat's record. A state that is not UTF-8 (garbage) loads with U+FFFD in it rather than failing
        the load: the service then fails to decode it and sets it aside (`quarantine`)."""
        keys = [k.version_key(chat), k.state_key(chat), k.messages_key(chat), k.meta_key(chat)]
        keys.append(k.ratings_key(chat))
        try:
            return self._record(*await self.script(LOAD, keys, []))
        except UnicodeDecodeError:
            return self._record(*await self.script(LOAD, keys, [], raw=True))

    @staticmethod
    def _record(
        version: Any, state: Any, messages: list[Any], meta: list[Any], ratings: list[Any]
    ) -> ChatRecord:
        """A chat's record from the LOAD script's reply (the save script's conflict reply ends with the same)."""
        fields = pairs(meta)
        return ChatRecord(
            version=int(version),
            state=text(state) if state else None,
            messages=pairs(messages),
            settings=fields.get("words"),
            lang=fields.get("lang"),
            last_durak=fields.get("last_durak"),
            season=int(fields.get("season", 1)),
            ratings={user: parse_rating(value) for user, value in pairs(ratings).items()},
        )

    async def save(
        self,
        chat: ChatRef,
        expected_version: int,
        state: str | None,
        *,
        ttl: int,
        deadline: float | None = None,
        outcome: GameOutcome | None = None,
        last_durak: str | LastDurak = LastDurak.KEEP,
        request_id: str | None = None,
        running: bool | None = None,
    ) -> int | None:
        """Store `state` if the chat is still at `expected_version`; return the new version, or None.

        The keywords are a `SaveRequest`'s (for tests and tools: the service builds its request). A
        `request_id` (unique per attempted change, e.g. "<user>:<update id>") makes a retry of a save whose
        reply was lost return the version it made instead of None, so the caller is not told "conflict" about
        its own change, and a lost reply is asked about (see `save_or_current`). Without it such a retry
        reports a conflict; the change is still applied once."""
        request = SaveRequest(
            expected_version, state, ttl=ttl, deadline=deadline, outcome=outcome, last_durak=last_durak,
            request_id=request_id, running=running,
        )  # fmt: skip
        saved = await self.save_or_current(chat, request)
        return saved if isinstance(saved, int) else None

    async def save_or_current(self, chat: ChatRef, request: SaveRequest) -> int | ChatRecord:
        """Apply `request` (one round trip, the SAVE script) and return the new version; on a conflict, the
        chat's current record (what `load` would), from the same reply, so the caller decides again at once.

        With a `request_id`, a lost reply (Redis timed out or the connection dropped after the script was
        sent) is asked about once: the version the save made if it was applied; if not, the request is
        marked void so it can never land later, and StoreUnavailable is raised as for any outage."""
        until = running_until(request, time.time())
        keys = save_keys(chat, request, single=not self.cluster)
        args = save_args(chat, request, single=not self.cluster, running_until=until)
        try:
            reply = await self.script(self._save, keys, args)
        except UnicodeDecodeError:  # only a conflict's reply holds text: the current record, not UTF-8
            return await self.load(chat)
        except StoreUnavailable:
            made = await self.request_outcome(chat, request.request_id) if request.request_id else None
            if made is None:
                raise
            reply = [made, -2]  # applied: its reply was lost
        version, old_timer = int(reply[0]), int(reply[1])
        if version == 0:
            return self._record(*reply[2:7])
        if self.cluster:  # on a replayed request, redo the idempotent part (the old member is unknown)
            await self._cluster_globals(
                chat, version, max(old_timer, -1), request.deadline, request.outcome, until
            )
        return version

    async def request_outcome(self, chat: ChatRef, request_id: str) -> int | None:
        """The version the save with `request_id` made, or None if it was not applied; then it never will be
        (a final answer: the request is marked void). One round trip."""
        made = await self.script(REQUEST_OUTCOME, [k.request_key(chat, request_id)], [REQUEST_TTL])
        return None if made is None else int(made)

    async def quarantine(self, chat: ChatRef, version: int) -> int | ChatRecord:
        """Move the chat's state aside (`keys.quarantine_key`, kept QUARANTINE_TTL) if the chat is still at
        `version`, and bump the version; return the new version. The caller read a state it cannot decode:
        a compare-and-set, like a save, so a state saved meanwhile is never the one set aside; then the
        chat's current record is returned instead."""
        keys = [k.version_key(chat), k.state_key(chat), k.messages_key(chat), k.meta_key(chat)]
        keys += [k.quarantine_key(chat, version), k.ratings_key(chat)]
        try:
            reply = await self.script(self._quarantine, keys, [version, QUARANTINE_TTL])
        except UnicodeDecodeError:
            return await self.load(chat)
        return int(reply[0]) if int(reply[0]) else self._record(*reply[1:6])

    async def replace_chat_words(self, chat: ChatRef, read: str, words: str) -> bool:
        """Set the chat's default words to `words` ("" clears them) if they are still `read` ("": none)."""
        replaced = await self.script(REPLACE_WORDS, [k.meta_key(chat)], [read, words])
        return bool(replaced)

    async def _cluster_globals(
        self,
        chat: ChatRef,
        version: int,
        old_timer: int,
        deadline: float | None,
        outcome: GameOutcome | None,
        running_until: float | None = None,
    ) -> None:
        """Second step of a save on a cluster: move the chat's timer member, write the archive, and list or
        unlist the chat among the running games (`running_until` 0: unlist)."""
        if old_timer < 0 and deadline is None and outcome is None and running_until is None:
            return
        pipe = self.redis.pipeline()
        if running_until is not None:
            if running_until:
                pipe.zadd(k.running_key(chat.platform), {str(chat): running_until})
            else:
                pipe.zrem(k.running_key(chat.platform), str(chat))
        if old_timer >= 0:
            pipe.zrem(k.timers_key(chat.platform), k.timer_member(chat, old_timer))
        if deadline is not None:
            pipe.zadd(k.timers_key(chat.platform), {k.timer_member(chat, version): deadline})
        if outcome is not None:
            pipe.set(k.archive_key(outcome.game_id), outcome.archive_json, ex=ARCHIVE_TTL)
        await self.roundtrip(pipe.execute())

    async def running_chats(self, platform: str, now: float | None = None) -> list[ChatRef]:
        """The platform's chats with a game running (see `keys.running_key`); those whose game expired
        untouched by ``now`` are dropped from the index on the way. One round trip."""
        key, now = k.running_key(platform), time.time() if now is None else now
        pipe = self.redis.pipeline()
        pipe.zremrangebyscore(key, "-inf", repr(float(now)))
        pipe.zrange(key, 0, -1)
        _, members = await self.roundtrip(pipe.execute())
        return [ChatRef.parse(text(member)) for member in members]

    async def stats(self, chat: ChatRef, limit: int = 20, season: int = 1) -> list[PlayerStats]:
        """The season's standings: the ``limit`` players with the highest rating (ordinal, mu - 3 sigma)
        first, then, to fill ``limit``, players not rated yet (their games predate ratings) in
        `PlayerStats.standing` order (of players tied on points at the cut, the higher user ids are kept).
        Two round trips."""
        pipe = self.redis.pipeline()
        pipe.zrevrange(k.leaderboard_key(chat, "rating", season), 0, limit - 1)
        pipe.zrevrange(k.leaderboard_key(chat, "points", season), 0, limit - 1)
        rated, by_points = await self.roundtrip(pipe.execute())
        users = [text(user) for user in rated]
        users += [user for user in map(text, by_points) if user not in users]
        rows = await self._players(chat, users[:limit], season)
        return sorted(rows, key=lambda row: row.rating_standing)

    async def most_often_durak(self, chat: ChatRef, limit: int = 3, season: int = 1) -> list[PlayerStats]:
        """The players tied with the most durak results (at most ``limit``, more games first: the `rank`
        board's order), none before anyone lost. Two round trips."""
        ranks = await self.roundtrip(
            self.redis.zrevrangebylex(k.leaderboard_key(chat, "rank", season), "+", "-", start=0, num=limit)
        )
        fields = [text(rank).split(":", 4) for rank in ranks]  # durak:games:first_out:points:user
        most = int(fields[0][0]) if fields else 0
        return await self._players(chat, [f[4] for f in fields if most > 0 and int(f[0]) == most], season)

    async def personal(self, chat: ChatRef, user_id: str, season: int = 1) -> PersonalRecord:
        """One player's totals, rating trend and head-to-head record in one season: two round trips (one
        when they have met nobody)."""
        pipe = self.redis.pipeline()
        pipe.hgetall(k.player_key(chat, user_id, season))
        pipe.lrange(k.trend_key(chat, user_id, season), 0, -1)
        pipe.hgetall(k.versus_key(chat, user_id, season))
        row, trend, versus = await self.roundtrip(pipe.execute())
        counts: dict[str, list[int]] = {}
        for field_name, count in versus.items():
            side, _, other = text(field_name).partition(":")
            counts.setdefault(other, [0, 0])[0 if side == "w" else 1] += int(count)
        met = list(counts)
        names: list[Any] = []
        if met:
            pipe = self.redis.pipeline()
            for other in met:
                pipe.hget(k.player_key(chat, other, season), "name")
            names = await self.roundtrip(pipe.execute())
        return PersonalRecord(
            stats=self._player_stats(user_id, {text(a): text(b) for a, b in row.items()}),
            trend=[float(text(value)) for value in trend],
            rivals=[
                Rival(other, text(name) or other, *counts[other])
                for other, name in zip(met, names, strict=True)
            ],
        )

    async def new_season(self, chat: ChatRef) -> int:
        """Start the chat's next season (ratings and standings begin again; earlier seasons stay readable);
        returns its number. A game running meanwhile still counts in the season it started in."""
        return int(await self.script(NEW_SEASON, [k.meta_key(chat), k.ratings_key(chat)], []))

    async def _players(self, chat: ChatRef, users: list[str], season: int = 1) -> list[PlayerStats]:
        """The totals of ``users``, in that order: one round trip (none for no users)."""
        if not users:
            return []
        pipe = self.redis.pipeline()
        for user in users:
            pipe.hgetall(k.player_key(chat, user, season))
        rows = await self.roundtrip(pipe.execute())
        return [
            self._player_stats(user, {text(a): text(b) for a, b in row.items()})
            for user, row in zip(users, rows, strict=True)
        ]

    @staticmethod
    def _player_stats(user: str, row: dict[str, str]) -> PlayerStats:
        def num(name: str) -> int:
            return int(row.get(name, 0))

        rating = (float(row["mu"]), float(row["sigma"])) if "mu" in row and "sigma" in row else None
        return PlayerStats(
            user,
            row.get("name", user),
            num("games"),
            num("durak"),
            num("first_out"),
            num("draws"),
            num("points"),
            rating=rating,
            rated=num("rated"),
            streak=num("streak"),
            ai_finished=num("ai_finished"),
        )

    async def set_messages(self, chat: ChatRef, updates: dict[str, str | None]) -> None:
        """Set (or, for None, forget) message ids; the hash expires with the chat's state."""
        if not updates:
            return
        args: list[str] = []
        for name, message_id in updates.items():
            args += [name, message_id or "", "0" if message_id is None else "1"]
        await self.script(SET_MESSAGES, [k.messages_key(chat), k.state_key(chat), k.version_key(chat)], args)

    async def set_chat_settings(
        self, chat: ChatRef, words: str | None = None, lang: str | None = None
    ) -> None:
        """Change the chat's default /newgame words and/or language: None leaves a value, "" clears it."""
        given = [(name, value) for name, value in (("words", words), ("lang", lang)) if value is not None]
        if not given:
            return
        to_set: dict[Any, Any] = {name: value for name, value in given if value}
        to_clear = [name for name, value in given if not value]
        pipe = self.redis.pipeline()
        if to_set:
            pipe.hset(k.meta_key(chat), mapping=to_set)
        if to_clear:
            pipe.hdel(k.meta_key(chat), *to_clear)
        await self.roundtrip(pipe.execute())

    async def claim_due_timers(
        self,
        now: float,
        limit: int = 100,
        *,
        platforms: Sequence[str],
        lease: float = 0.0,
        done: Sequence[tuple[ChatRef, int]] = (),
    ) -> list[tuple[ChatRef, int]]:
        """Pop up to `limit` deadlines due by `now` on each of `platforms`. Each is handed to one caller only,
        who must still check that the chat is at that version (a claim may race a save).

        With `lease` (seconds) a claimed deadline is not removed but moved to `now + lease`: if the claimer
        dies before handling it, it fires again then, from any process. Pass the claims already handled as
        `done` with the next call (same round trip) to remove them; one that is never passed back fires once
        more after the lease and does nothing (its version is gone, or it is handled again to the same end)."""
        claimed: list[tuple[ChatRef, int]] = []
        for platform in platforms:
            acks = [k.timer_member(chat, version) for chat, version in done if chat.platform == platform]
            args: list[Any] = [repr(float(now)), limit, repr(float(lease)), *acks]
            members = await self.script(CLAIM_TIMERS, [k.timers_key(platform)], args)
            claimed += [k.parse_timer_member(text(member)) for member in members]
        return claimed

    async def requeue_timer(self, chat: ChatRef, version: int, due: float) -> None:
        """Put back a claimed deadline whose handling failed (e.g. Redis went away mid-way), to fire at `due`.
        Harmless if the chat has moved on: a deadline for an old version does nothing when it fires."""
        await self.roundtrip(
            self.redis.zadd(k.timers_key(chat.platform), {k.timer_member(chat, version): due}, nx=True)
        )

    async def archived_game(self, game_id: str) -> str | None:
        archived = text(await self.roundtrip(self.redis.get(k.archive_key(game_id))))
        return None if archived is None else str(archived)

    async def analysis(self, game_id: str) -> str | None:
        """A finished game's analysis, once computed (`bot.runtime.analyses`); None before, or when gone."""
        found = text(await self.roundtrip(self.redis.get(k.analysis_key(game_id))))
        return None if found is None else str(found)

    async def save_analysis(self, game_id: str, analysis: str) -> bool:
        """Keep a game's analysis until its archive expires; False (nothing written) when the archive is
        gone or an analysis is kept already. A key of its own rather than a field of the archive: the
        archive is written once, by the script that saves the game's end, and never rewritten, so a later
        write cannot race it or corrupt it; the key's expiry is the archive's remaining time."""
        left = int(await self.roundtrip(self.redis.ttl(k.archive_key(game_id))))
        if left <= 0:  # -2: no archive; -1: one without expiry (not written by this code): the same TTL
            if left != -1:
                return False
            left = ARCHIVE_TTL
        written = await self.roundtrip(self.redis.set(k.analysis_key(game_id), analysis, ex=left, nx=True))
        return bool(written)

    async def migrate_chat(self, old: ChatRef, new: ChatRef) -> None:
        """Move a chat's game, messages, settings and stats to a new id (Telegram group -> supergroup)."""
        await migrate_chat(self, old, new)

    async def ping(self) -> None:
        await self.roundtrip(self.redis.ping())
