"""What one person may ask of the page's routes, checked before anything costs a Redis call or a build.

- Reads: ``GET /api/state`` per person (`read_limiter`). A page reads its state when it opens and when it
  reconnects; everything else comes over its WebSocket, so a person reading faster than this is a script.
- Replays: ``GET /api/replay`` per person (`replay_limiter`). Building one costs the engine a whole game
  (tens of milliseconds of CPU for a long game), so the budget is a few at once, then one every 2 s.
- Analyses: ``GET /api/analysis`` per person (`analysis_limiter`). The page asks again every 2 s while the
  analysis is computed, and what it starts is bounded apart (`bot.runtime.analyses`: one per game, one per
  chat at a time, and 5 new ones per person an hour, `started_budget`), so the budget covers that polling: a
  few at once, then one a second. `analysis_refusal` says why one was not started.
- Presses: the service's own limit (`bot.runtime.ratelimit`), the same bucket as the chat's buttons.

As `bot.runtime.ratelimit` explains, the buckets are per process. A refusal is a 429 with ``Retry-After``.

And the size of a request's body (`read_body`): the routes may be mounted on an app whose own limit is much
larger (the Telegram webhook's server allows 1 MiB), so each route bounds what it reads itself.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from aiohttp import web

from bot.adapter import STARTS_PER_HOUR, Busy, PressLimiter, Translator

READ_RATE = 2.0  # state reads per second, sustained
READ_BURST = 10.0  # at once: a few tabs opened together, reconnects after a network change
REPLAY_RATE = 0.5  # replays per second, sustained: one every 2 s
REPLAY_BURST = 5.0  # at once: a player looking through their last few games
ANALYSIS_RATE = 1.0  # analysis asks per second, sustained: the page polls every 2 s while it is computed
ANALYSIS_BURST = 5.0


class BodyTooLarge(Exception):
    """The request's body is longer than the route accepts."""


def read_limiter(clock: Callable[[], float] = time.monotonic) -> PressLimiter:
    return PressLimiter(READ_RATE, READ_BURST, clock)


def replay_limiter(clock: Callable[[], float] = time.monotonic) -> PressLimiter:
    return PressLimiter(REPLAY_RATE, REPLAY_BURST, clock)


def analysis_limiter(clock: Callable[[], float] = time.monotonic) -> PressLimiter:
    return PressLimiter(ANALYSIS_RATE, ANALYSIS_BURST, clock)


def analysis_refusal(busy: Busy, tr: Translator) -> tuple[str, str]:
    """The text and ``Retry-After`` of the 429 for an analysis `Analyses.ask` did not start now. A person
    past their budget may start the next one within 60 / ``STARTS_PER_HOUR`` minutes (one comes back that
    often); the other two wait for someone else's analysis, a few seconds to a minute."""
    if busy is Busy.PERSON:
        minutes = math.ceil(60 / STARTS_PER_HOUR)
        text = tr.n_(
            "You have started many analyses lately: try again in {n} minute.",
            "You have started many analyses lately: try again in {n} minutes.",
            minutes,
        ).format(n=minutes)
        return text, str(minutes * 60)
    if busy is Busy.CHAT:
        return tr._("Another game of this chat is being analysed: try again when it is done."), "10"
    return tr._("Many games are being analysed right now: try again in a minute."), "10"


def retry_after(limiter: PressLimiter) -> str:
    """Seconds until the bucket holds one more token, rounded up: the ``Retry-After`` of a refusal."""
    return str(max(1, math.ceil(1 / limiter.rate)))


async def read_body(request: web.Request, limit: int) -> bytes:
    """The body, at most ``limit`` bytes, else BodyTooLarge: a ``Content-Length`` over it is refused unread,
    and a body without one (chunked) is read only until it passes the limit."""
    if request.content_length is not None and request.content_length > limit:
        raise BodyTooLarge
    body = bytearray()
    while chunk := await request.content.read(limit + 1 - len(body)):
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge
    return bytes(body)
