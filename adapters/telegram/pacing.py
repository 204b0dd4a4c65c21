"""Flood limits as code: a token bucket smooths bursts, a sliding window is the hard ceiling.

Telegram allows about 20 messages a minute in a group (edits count), about one a second in a private chat
and about 30 a second overall. The bucket keeps a steady pace (so a busy game gets one table edit every
few seconds rather than 20 at once and then a frozen minute); the window guarantees the ceiling. A send is
counted from the moment it leaves until its answer, as the later time, so a slow answer never lets the next
send slip into a window Telegram still counts as full. A send that can wait (an informational reply) asks
for ``spare`` sends on top of its own, so a table edit coming next still finds one. The clock is injectable: tests share the fake
server's virtual clock and play a minute of limits in a fraction of a second.

Telegram counts per token, so the limits belong to every process serving it: `Pacer` is what a delivery
asks before each send, with two implementations. `LocalPacer` keeps the limits in this process (the
terminal, tests without Redis, one process alone); `shared_pacing.SharedPacer` keeps them in Redis, where
every process takes from the same token bucket and the same chat windows.

Across chats a send has a rank (`Ask.rank`): when the token's budget runs short, the acting player's hand
goes first, then tables, game notices and the game's result, then waiting players' hands and informational
replies. A lower rank leaves ``RANK_SPARES`` of the token's sends to the higher ones, so under overload it
waits while they go, and goes once they are served (nothing is lost: waiting screens merge into their
newest).
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.adapter import LRU

EPSILON = 1e-6  # seconds: float rounding must never turn a wait into an endless series of zero waits


class Clock(Protocol):
    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class TokenBucket:
    """``capacity`` sends at once, then ``rate`` per second."""

    def __init__(self, capacity: float, rate: float, now: float) -> None:
        self.capacity, self.rate = capacity, rate
        self.tokens, self.stamp = capacity, now

    def _refill(self, now: float) -> None:
        if now > self.stamp:
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now

    def wait(self, now: float, spare: int = 0) -> float:
        self._refill(now)
        needed = min(self.capacity, 1 + spare)
        return 0.0 if self.tokens >= needed - EPSILON else max(EPSILON, (needed - self.tokens) / self.rate)

    def take(self, now: float) -> None:
        self._refill(now)
        self.tokens -= 1

    def settle(self, started: float, finished: float) -> None:
        pass  # a bucket only cares when a send started


class SlidingWindow:
    """At most ``limit`` sends in any ``window`` seconds."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit, self.window = limit, window
        self.times: list[float] = []

    def _forget(self, now: float) -> None:
        while self.times and self.times[0] <= now - self.window:
            self.times.pop(0)

    def wait(self, now: float, spare: int = 0) -> float:
        self._forget(now)
        limit = max(1, self.limit - spare)
        if len(self.times) < limit:
            return 0.0
        return max(EPSILON, self.times[len(self.times) - limit] + self.window - now + EPSILON)

    def take(self, now: float) -> None:
        bisect.insort(self.times, now)

    def settle(self, started: float, finished: float) -> None:
        """Count a send at the time its answer came (Telegram counted it somewhere in between)."""
        index = bisect.bisect_left(self.times, started)
        if index < len(self.times) and self.times[index] == started:
            self.times.pop(index)
            bisect.insort(self.times, max(started, finished))


Limiter = TokenBucket | SlidingWindow


class Pace:
    """All limits of one chat (or of the whole bot) together."""

    def __init__(self, *limiters: Limiter) -> None:
        self.limiters = limiters

    def wait(self, now: float, spare: int = 0) -> float:
        return max((limiter.wait(now, spare) for limiter in self.limiters), default=0.0)

    def take(self, now: float) -> None:
        for limiter in self.limiters:
            limiter.take(now)

    def settle(self, started: float, finished: float) -> None:
        for limiter in self.limiters:
            limiter.settle(started, finished)


@dataclass(frozen=True)
class Limits:
    """Telegram's limits with a safety margin: a group's bucket refills so that its burst plus a window's
    worth of refill never exceeds the window's limit, so the window is a backstop that rarely waits."""

    group_per_window: int = 20
    group_window: float = 60.0
    group_burst: int = 3
    private_burst: int = 3
    private_per_second: float = 1.0
    global_per_second: int = 30
    global_burst: int = 10
    margin: float = 1.0  # seconds added to each window: our clock and Telegram's never agree exactly
    reply_spare: int = 1  # sends an informational reply leaves to the chat's next table or hand edit
    table_every: float = 0.0  # seconds at least between two edits of a running game's table (0: any pace)

    def group(self, now: float) -> Pace:
        window = self.group_window + self.margin
        rate = (self.group_per_window - self.group_burst) / window
        return Pace(TokenBucket(self.group_burst, rate, now), SlidingWindow(self.group_per_window, window))

    def private(self, now: float) -> Pace:
        return Pace(TokenBucket(self.private_burst, self.private_per_second, now))

    def overall(self, now: float) -> Pace:
        rate = (self.global_per_second - self.global_burst) / (1 + self.margin / 10)
        return Pace(
            TokenBucket(self.global_burst, rate, now),
            SlidingWindow(self.global_per_second, 1.0 + self.margin / 10),
        )


ACTING, SCREENS, WAITING = 0, 1, 2  # ranks across chats: the acting hand, tables and notices, the rest
RANK_SPARES = (0, 3, 6)  # the token's sends each rank leaves to higher ones (of its burst of 10 a second)


@dataclass(frozen=True)
class Ask:
    """One send's request: to Telegram chat ``chat``, leaving ``spare`` sends to the chat's next screen (a
    reply), at ``rank`` across chats; ``screen`` (home chat, screen name, version) for a table or hand with a
    version, so a pacer that knows what other processes sent can refuse it when it is older; ``every``: the
    screen goes at most once in that many seconds (a running game's table, `Limits.table_every`);
    ``drawn``: a digest of what an edit of the screen's message would show, so a pacer that knows what it
    shows answers "same" (`Admission.same`) rather than let an edit go that would change nothing."""

    chat: int
    rank: int = SCREENS
    spare: int = 0
    screen: tuple[str, str, int] | None = None
    every: float = 0.0
    drawn: str = ""


@dataclass(frozen=True)
class Admission:
    """A pacer's answer: send now (``wait`` 0; ``ticket`` goes back with `Pacer.settle`), ask again after
    ``wait`` seconds, or drop (``newer``: the version of the same screen some process already sent), or skip
    (``same``: the screen's message shows already what this edit would)."""

    wait: float = 0.0
    newer: int = 0
    ticket: str = ""
    message: str = ""  # a shared pacer's: the screen's message as stored now ("<game>:<id>"), "" unknown
    same: bool = False
    content: str = ""  # a shared pacer's: what that message shows ("<message>|<digest>|<live>"), "" unknown
    owed: str = ""  # a shared pacer's: old messages of the screen still to remove ("<chat>:<id>:<d|s>" ...)


class Pacer(Protocol):
    """Telegram's flood limits as one delivery sees them. `admit` takes a send from the limits when it says
    "send now"; nothing is taken for a wait or a drop."""

    round_trips: int  # calls to a shared store so far (0 for the in-process pacer)

    @property
    def shared(self) -> bool:
        """Whether what screens' messages show is known across processes (`Admission.same`): else only
        this process's own memory of what it sent says so."""
        ...

    def behind(self, chat: int, now: float, spare: int) -> bool:
        """Whether the chat cannot send ``spare`` more now (an estimate, no round trip)."""
        ...

    async def admit(self, ask: Ask, now: float) -> Admission: ...

    async def admit_call(self, now: float) -> Admission:
        """A Bot API call that is no message (a delete): the token's pace only."""
        ...

    def settle(self, chat: int, ticket: str, started: float, finished: float) -> None:
        """The send ``ticket`` was answered: Telegram counted it somewhere between the two."""
        ...

    async def landed(
        self, ask: Ask, ticket: str, now: float, shows: str | None = None, owed_done: Sequence[str] = ()
    ) -> None:
        """The send ``ticket`` of ``ask``'s screen was answered or failed at ``now``: other processes may
        send it, a spaced one (``ask.every``) once that many seconds have passed. ``shows``: what its
        message shows now ("<message>|<digest>|<live>"; "": unknown; None: unchanged); ``owed_done``: the
        screen's old messages removed meanwhile (as `Admission.owed` lists them)."""
        ...

    async def posted(self, ask: Ask, ticket: str, message: str, owed: str = "") -> bool | None:
        """The send ``ticket`` posted ``ask``'s screen anew as ``message`` ("<game>:<id>"), its old message
        owed ``owed`` ("<chat>:<id>:<d|s>", "" nothing): True once stored for every process; False when
        another process's send took the screen meanwhile (this new message is then the one to remove); None
        when this pacer keeps nothing of it (the delivery stores the id itself)."""
        ...

    async def pause(self, chat: int, seconds: float, now: float) -> None:
        """Telegram answered 429: nothing goes to the chat for ``seconds``."""
        ...


class LocalPacer:
    """The limits kept in this process: every chat's pace, for the chats that sent most recently (more than
    the token's 30 a second let send within a window, so forgetting the others never lets one exceed it)."""

    round_trips = 0
    shared = False

    def __init__(self, limits: Limits, now: float) -> None:
        self.limits = limits
        hot = limits.global_per_second * (limits.group_window + limits.margin)
        self.paces: LRU[int, Pace] = LRU(2 * int(hot))
        self.overall = limits.overall(now)
        self.paused: dict[int, float] = {}
        self.spaced: LRU[tuple[int, str], float] = LRU(2 * int(hot))  # (chat, screen): not before then

    def _pace(self, chat: int, now: float) -> Pace:
        pace = self.paces.get(chat)
        if pace is None:
            pace = self.paces[chat] = self.limits.group(now) if chat < 0 else self.limits.private(now)
        return pace

    def behind(self, chat: int, now: float, spare: int) -> bool:
        return self.paused.get(chat, 0.0) > now or self._pace(chat, now).wait(now, spare) > 0

    async def admit(self, ask: Ask, now: float) -> Admission:
        pace = self._pace(ask.chat, now)
        paused = self.paused.get(ask.chat, 0.0)
        if paused <= now:
            self.paused.pop(ask.chat, None)
        spaced = 0.0
        if ask.every > 0 and ask.screen is not None:
            spaced = self.spaced.get((ask.chat, ask.screen[1])) or 0.0
        wait = max(paused - now, spaced - now, pace.wait(now, ask.spare))
        wait = max(wait, self.overall.wait(now, RANK_SPARES[ask.rank]))
        if wait > 0:
            return Admission(wait)
        self.paces[ask.chat] = pace  # it sends now: the newest to keep
        pace.take(now)
        self.overall.take(now)
        return Admission(ticket=repr(now))

    async def admit_call(self, now: float) -> Admission:
        wait = self.overall.wait(now)
        if wait > 0:
            return Admission(wait)
        self.overall.take(now)
        return Admission(ticket=repr(now))

    async def landed(
        self, ask: Ask, ticket: str, now: float, shows: str | None = None, owed_done: Sequence[str] = ()
    ) -> None:
        """One process: its chat's queue sends one screen at a time; a spaced one waits after it."""
        if ask.every > 0 and ask.screen is not None:
            self.spaced[(ask.chat, ask.screen[1])] = now + ask.every

    async def posted(self, ask: Ask, ticket: str, message: str, owed: str = "") -> bool | None:
        return None  # one process: nobody else sends the screen (the delivery stores its id itself)

    def settle(self, chat: int, ticket: str, started: float, finished: float) -> None:
        pace = self.paces.get(chat)
        if pace is not None:
            pace.settle(started, finished)
        self.overall.settle(started, finished)

    async def pause(self, chat: int, seconds: float, now: float) -> None:
        self.paused[chat] = max(self.paused.get(chat, 0.0), now + seconds)
