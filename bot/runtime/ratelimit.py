"""Per-user limits on button presses and on typed commands, so one person flooding cannot busy Redis (or a
group's ~20 messages a minute) for everyone.

A token bucket per (platform, user): ``burst`` inputs at once, then ``rate`` per second. It is checked
before the input is even parsed, so a refused press or command costs no Redis round trip. Commands get a
bucket of their own (`command_limiter`), slower than presses: people type far less often than they tap.

The buckets live in this process only: with several bot processes a user's presses are limited in each
process separately (Telegram webhooks spread one user's updates over the processes, so the effective limit is
up to ``processes x rate``). That is enough against floods; exact limits across processes would cost a Redis
round trip per press, which is what the limit is there to save.
"""

from __future__ import annotations

import time
from collections.abc import Callable

DEFAULT_RATE = 5.0  # presses per second, sustained: well above what a person taps while playing
DEFAULT_BURST = 15.0  # presses at once: a quick player clearing a hand, or a double tap
COMMAND_RATE = 0.5  # commands per second, sustained: nobody types more than one every two seconds for long
COMMAND_BURST = 5.0  # commands at once: /newgame, /join, /start and a /rules in a row


class PressLimiter:
    def __init__(
        self,
        rate: float = DEFAULT_RATE,
        burst: float = DEFAULT_BURST,
        clock: Callable[[], float] = time.monotonic,
        max_users: int = 50_000,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("rate must be positive and burst at least 1")
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.max_users = max_users
        self.buckets: dict[tuple[str, str], tuple[float, float]] = {}  # (tokens, at) per (platform, user)
        self.refused = 0

    def allow(self, platform: str, user_id: str) -> bool:
        """Take one token for this user's press; False (and nothing taken) when the bucket is empty."""
        now = self.clock()
        key = (platform, user_id)
        known = self.buckets.pop(key, None)  # re-inserted below: the dict stays in order of last press
        tokens, at = known if known is not None else (self.burst, now)
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if known is None and len(self.buckets) >= self.max_users:
            self.forget_idle(now)
        allowed = tokens >= 1
        self.buckets[key] = (tokens - 1 if allowed else tokens, now)
        self.refused += not allowed
        return allowed

    def forget_idle(self, now: float) -> None:
        """Drop the buckets that have filled up again (they hold no information); if none, the half whose
        last press is oldest."""
        full_after = self.burst / self.rate
        idle = [key for key, (_, at) in self.buckets.items() if now - at >= full_after]
        for key in idle or list(self.buckets)[: len(self.buckets) // 2]:
            del self.buckets[key]


def command_limiter(clock: Callable[[], float] = time.monotonic) -> PressLimiter:
    """The per-user bucket for commands (`GameService.commands`)."""
    return PressLimiter(COMMAND_RATE, COMMAND_BURST, clock)
