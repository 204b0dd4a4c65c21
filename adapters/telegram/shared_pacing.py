"""Telegram's limits for every process serving one token: the buckets and windows kept in Redis.

Telegram counts per token (30 messages a second) and per chat (about 20 a minute in a group, one a second in
a private chat), not per process. Several webhook processes behind a load balancer (docs/deploy.md) each
pacing on their own would together send twice that, and when a group's presses land on two processes, both
pace its table. `SharedPacer` asks Redis instead: one script call per send (storage/pace_scripts.py, `PACE`) takes
from the token's bucket and window and from the chat's, exactly as `pacing.LocalPacer` does in memory, and
in the same call refuses a table or hand older than one any process already sent or is sending (the chat's
``messages`` hash, bot/outbox.py): no screen goes backwards across processes. The same call reads the
screen's message id as stored now, so a process edits the hand another one just posted anew (a turn
announced), not the old one it remembers; and while one process's send of a screen is on its way, the
others' sends of it wait (``flight:<screen>``, until its answer came, `FLIGHT_HOLD` at most): two edits on
their way at once could reach Telegram in either order. A spaced screen (a running game's table, one edit
every `Limits.table_every` seconds at most) waits until that long after its last send landed, from whichever
process (``spaced:<screen>``, set when the answer comes). What a screen's message shows is kept beside its id
(``content:<screen>``, written when a send lands): an edit that would show the same, whichever process sent
it, is answered "same" and never made, so Telegram never answers "message is not modified". A screen posted
anew is stored only while its send still holds the screen (`SharedPacer.posted`), with the removal its old
message is owed (``owed:<screen>``) until done, by this process or whichever sends the screen next.

Why a shared bucket and window rather than a lease (one process owning a chat's deliveries at a time): a
lease still needs the token-wide budget shared, it moves a chat's queue between processes when presses land
on both (a hand-over that delays or loses what the old owner queued), and a crashed owner stalls its chats
until the lease runs out. The shared limits cost one round trip per send (about 0.1-0.3 ms on a local
Redis, `bench/telegram_pacing.py`) and any process may send for any chat at any time.

Times: the Redis server's clock by default, so processes on several machines agree; a test gives its virtual
clock. A send is counted from the moment it is let go; when its answer comes, the next call of this process
moves it to that moment (no extra round trip), as the in-process window does. Should Redis be unreachable,
the process paces alone (`LocalPacer`) until it answers again: one process's limits are better than none.
"""

from __future__ import annotations

import itertools
import logging
import secrets
from collections.abc import Sequence

from adapters.telegram.memory import ref
from adapters.telegram.pacing import RANK_SPARES, Admission, Ask, Clock, Limits, LocalPacer
from bot.adapter import (
    LRU,
    TELEGRAM,
    PaceLimit,
    RedisGameStore,
    ScreenTurn,
    SharedLimits,
    StoreUnavailable,
    content_mark,
    flight_mark,
    owed_mark,
    screen_marks,
    spaced_mark,
)

log = logging.getLogger("durak.telegram")

IN_FLIGHT = 0.25  # seconds after it is let go that a send not answered yet is counted as made
FLIGHT_HOLD = 5.0  # seconds a screen's send holds the other processes' sends of it back, at most (a crash)
KEPT_SETTLES = 10_000  # chats whose last send's answer time waits for their next call; older ones are let go


def token_limit(limits: Limits) -> PaceLimit:
    """The token's bucket and window, as `Limits.overall` builds them."""
    seconds = 1.0 + limits.margin / 10
    rate = (limits.global_per_second - limits.global_burst) / seconds
    return (limits.global_burst, rate, limits.global_per_second, seconds)


def chat_limit(limits: Limits, chat: int) -> PaceLimit:
    """A group's or a private chat's, as `Limits.group` and `Limits.private` build them."""
    if chat < 0:
        window = limits.group_window + limits.margin
        rate = (limits.group_per_window - limits.group_burst) / window
        return (limits.group_burst, rate, limits.group_per_window, window)
    return (limits.private_burst, limits.private_per_second, 0, 0.0)


def screen_turn(ask: Ask) -> ScreenTurn | None:
    """What the shared limits check of a table's or hand's send (None for any other message)."""
    if ask.screen is None:
        return None
    home, name, version = ask.screen
    shown, sending = screen_marks(name)
    flight, spaced = flight_mark(name), spaced_mark(name)
    return ScreenTurn(
        ref(home), shown, sending, version, name, flight, FLIGHT_HOLD, spaced, ask.every,
        content_mark(name), ask.drawn, owed_mark(name),
    )  # fmt: skip


class SharedPacer:
    """`pacing.Pacer` on Redis, shared by every process serving one token."""

    def __init__(
        self,
        store: RedisGameStore,
        limits: Limits | None = None,
        clock: Clock | None = None,
        platform: str = TELEGRAM,
    ) -> None:
        """``clock``: the time every process passes (tests' virtual clock); None: the Redis server's."""
        self.store = store
        self.scripts = SharedLimits(store)
        self.limits = limits or Limits()
        self.clock = clock
        self.platform = platform
        self.token = token_limit(self.limits)
        self.name = secrets.token_hex(4)  # this process's sends are "<name>:<n>" in the windows
        self.numbers = itertools.count(1)
        self.round_trips = 0
        self.token_settles: list[tuple[str, str, float]] = []
        self.chat_settles: LRU[int, list[tuple[str, str, float]]] = LRU(KEPT_SETTLES)
        self.until: LRU[int, float] = LRU(KEPT_SETTLES)  # when a chat was last told it may send (local time)
        self.token_until = [0.0] * len(RANK_SPARES)  # per rank: the token's budget is spent until then
        self.fallback: LocalPacer | None = None  # pacing alone while Redis does not answer

    @property
    def shared(self) -> bool:
        return self.fallback is None

    def _now(self) -> float | None:
        return None if self.clock is None else self.clock.now()

    def behind(self, chat: int, now: float, spare: int) -> bool:
        if self.fallback is not None:
            return self.fallback.behind(chat, now, spare)
        return (self.until.get(chat) or 0.0) > now

    async def admit(self, ask: Ask, now: float) -> Admission:
        spent = max(self.token_until[: ask.rank + 1]) - now
        if spent > 0 and self.fallback is None:
            return Admission(spent)  # the token's budget is spent for this rank: no need to ask Redis
        screen = screen_turn(ask)
        return await self._ask(ask.chat, now, chat_limit(self.limits, ask.chat), ask, screen)

    async def landed(
        self, ask: Ask, ticket: str, now: float, shows: str | None = None, owed_done: Sequence[str] = ()
    ) -> None:
        if self.fallback is not None:
            await self.fallback.landed(ask, ticket, now)
            return
        screen = screen_turn(ask)
        if screen is None or not ticket:
            return
        try:
            before = self.store.round_trips
            await self.scripts.landed(screen, ticket, self._now(), shows=shows, owed_done=owed_done)
            self.round_trips += self.store.round_trips - before
        except StoreUnavailable as error:
            log.info("chat %s: in-flight mark left to expire (%s)", ask.chat, error)

    async def posted(self, ask: Ask, ticket: str, message: str, owed: str = "") -> bool | None:
        screen = screen_turn(ask)
        if self.fallback is not None or screen is None or not ticket:
            return None
        try:
            before = self.store.round_trips
            stored = await self.scripts.posted(screen, ticket, message, owed)
            self.round_trips += self.store.round_trips - before
        except StoreUnavailable as error:
            log.info("chat %s: a screen posted anew not stored by the script (%s)", ask.chat, error)
            return None  # the delivery stores its id the plain way, which reports the outage itself
        return stored

    async def admit_call(self, now: float) -> Admission:
        return await self._ask(0, now, None, None, None)

    async def _ask(
        self,
        chat: int,
        now: float,
        limit: PaceLimit | None,
        ask: Ask | None,
        screen: ScreenTurn | None,
    ) -> Admission:
        member = f"{self.name}:{next(self.numbers)}"
        settles = [*self.token_settles, *(self.chat_settles.pop(chat, None) or [])]
        spares = (ask.spare, RANK_SPARES[ask.rank]) if ask is not None else (0, 0)
        before = self.store.round_trips
        try:
            turn = await self.scripts.pace(
                self.platform, chat, member, now=self._now(), token=self.token, chat_limit=limit,
                spares=spares, screen=screen, settles=settles, in_flight=IN_FLIGHT,
            )  # fmt: skip
        except StoreUnavailable as error:
            if self.fallback is None:
                log.warning("shared pacing unavailable (%s): pacing this process alone", error)
                self.fallback = LocalPacer(self.limits, now)
            if ask is None:
                return await self.fallback.admit_call(now)
            return await self.fallback.admit(ask, now)
        finally:
            self.round_trips += self.store.round_trips - before
        self.token_settles.clear()
        if self.fallback is not None:
            log.info("shared pacing answers again")
            self.fallback = None
        if turn.verdict == "drop":
            return Admission(newer=int(turn.value))
        if turn.verdict == "same":
            return Admission(same=True)
        if turn.verdict == "wait":
            if limit is not None:
                self.until[chat] = now + turn.value
            if ask is not None and turn.token_wait > 0:
                self.token_until[ask.rank] = now + turn.token_wait
            return Admission(turn.value)
        self.until.pop(chat, None)
        return Admission(ticket=member, message=turn.message, content=turn.content, owed=turn.owed)

    def settle(self, chat: int, ticket: str, started: float, finished: float) -> None:
        if self.fallback is not None:
            self.fallback.settle(chat, ticket, started, finished)
            return
        if not ticket:
            return
        later = finished - started - IN_FLIGHT
        self.token_settles.append(("t", ticket, later))
        del self.token_settles[: -KEPT_SETTLES // 10]  # a bounded list: an old answer time is only a nicety
        if chat:
            settles = self.chat_settles.get(chat) or []
            self.chat_settles[chat] = [*settles[-2:], ("c", ticket, later)]

    async def pause(self, chat: int, seconds: float, now: float) -> None:
        self.until[chat] = max(self.until.get(chat) or 0.0, now + seconds)
        if self.fallback is not None:
            await self.fallback.pause(chat, seconds, now)
            return
        try:
            before = self.store.round_trips
            await self.scripts.pace_pause(self.platform, chat, seconds, self._now())
            self.round_trips += self.store.round_trips - before
        except StoreUnavailable as error:
            log.info("chat %s: pause not shared (%s)", chat, error)
