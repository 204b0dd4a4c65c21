"""Flood limits as code: a token bucket smooths bursts, a sliding window is the hard ceiling.

Telegram allows about 20 messages a minute in a group (edits count), about one a second in a private chat
and about 30 a second overall. The bucket keeps a steady pace (so a busy game gets one table edit every
few seconds rather than 20 at once and then a frozen minute); the window guarantees the ceiling. A send is
counted from the moment it leaves until its answer, as the later time, so a slow answer never lets the next
send slip into a window Telegram still counts as full. A send that can wait (an informational reply) asks
for ``spare`` sends on top of its own, so a table edit coming next still finds one. The clock is injectable: tests share the fake
server's virtual clock and play a minute of limits in a fraction of a second.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from dataclasses import dataclass
from typing import Protocol

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
