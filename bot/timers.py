"""The turn-timer loop: claim due deadlines from the store, feed them to the service, deliver the effects.

Run one loop per process. The store's claim is atomic, so several processes (or several loops) can run side
by side and each deadline is handled once; it is leased, so a deadline claimed by a process that is killed
fires again after the lease from another. A claim carries the chat's version; the service ignores a deadline
whose game has moved on, so a late or repeated claim does nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence

from bot import metrics
from bot.effects import Effect
from bot.inputs import TimerDue
from bot.service import GameService
from storage.errors import StoreUnavailable
from storage.keys import PLATFORMS, ChatRef
from storage.store import GameStore

log = logging.getLogger("durak.timers")

LEASE = 30.0  # seconds a claimed deadline waits before another process may claim it again

Deliver = Callable[[TimerDue, list[Effect]], Awaitable[None]]


class Deliveries:
    """Routes the effects of a deadline to the adapter of its platform ("tg", "dc", "local").

    One process serving Telegram and Discord runs one timer loop: `durak-bot run` builds one `Deliveries`,
    hands it to each adapter, and each registers its deliver function in it when it starts (two loops in
    one process would claim each other's deadlines), and a deadline of a platform nobody serves in this process is logged and dropped (the
    move itself is stored; that chat's screen catches up on its next input)."""

    def __init__(self) -> None:
        self.routes: dict[str, Deliver] = {}

    def register(self, platform: str, deliver: Deliver) -> None:
        self.routes[platform] = deliver

    def unregister(self, platform: str, deliver: Deliver) -> None:
        """An adapter stopping: its platform's deadlines due from now on wait for another process."""
        if self.routes.get(platform) == deliver:
            del self.routes[platform]

    @property
    def platforms(self) -> list[str]:
        """The platforms this process serves: it claims only their deadlines, never another's."""
        return sorted(self.routes)

    async def __call__(self, due: TimerDue, effects: list[Effect]) -> None:
        deliver = self.routes.get(due.platform)
        if deliver is None:
            log.warning(
                "no adapter for platform %r in this process; %d effects dropped", due.platform, len(effects)
            )
            return
        await deliver(due, effects)


async def handle_due(
    service: GameService,
    store: GameStore,
    deliver: Deliver,
    now: float,
    limit: int = 100,
    platforms: Sequence[str] = PLATFORMS,
    lease: float = 0.0,
    done: list[tuple[ChatRef, int]] | None = None,
) -> int:
    """One pass: claim what is due by ``now`` on ``platforms``, handle and deliver each; how many claimed.

    With a ``lease`` the claims stay in Redis until given back: ``done`` is a list kept by the caller from
    one pass to the next, holding the claims handled; the next claim removes them in the same round trip. A
    claim this process never gives back (it was killed, or Redis failed while handling it) fires again after
    the lease, from whichever process claims it."""
    claimed = await store.claim_due_timers(now, limit, platforms=platforms, lease=lease, done=done or ())
    if done is not None:
        done.clear()
    for chat, version in claimed:
        due = TimerDue(chat.platform, chat.chat_id, version)
        try:
            effects = await service.handle_timer(due)
            if effects:
                await deliver(due, effects)
        except StoreUnavailable:
            raise  # not given back: it fires again after the lease
        except Exception:  # one chat's failure must not stop every other chat's timers
            log.exception("timer for %s at version %s failed", chat, version)
            metrics.METRICS.error("timer")
        if done is not None:
            done.append((chat, version))
    return len(claimed)


async def run_timers(
    service: GameService,
    store: GameStore,
    stop_event: asyncio.Event,
    deliver: Deliver,
    poll: float = 0.25,
    clock: Callable[[], float] = time.time,
    platforms: Sequence[str] | None = None,
    lease: float = LEASE,
) -> None:
    """Until ``stop_event`` is set: every ``poll`` seconds (at once again while deadlines keep coming),
    handle the due deadlines. A Redis outage is logged once and retried; it never ends the loop.

    Claims are leased (see `handle_due`): a deadline claimed by a process that dies fires ``lease`` seconds
    later from another one."""
    outage = False
    done: list[tuple[ChatRef, int]] = []
    while not stop_event.is_set():
        try:
            served = platforms if platforms is not None else getattr(deliver, "platforms", PLATFORMS)
            claimed = await handle_due(
                service, store, deliver, clock(), platforms=served, lease=lease, done=done
            )
            if outage:
                log.info("timer loop: the store answers again")
            outage = False
        except StoreUnavailable as error:
            if not outage:
                log.warning("timer loop: store unavailable (%s); retrying", error)
            outage, claimed = True, 0
        if claimed:
            continue  # there may be more due right now
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop_event.wait(), timeout=poll)
