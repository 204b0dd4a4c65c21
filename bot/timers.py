"""The turn-timer loop: claim due deadlines from the store, feed them to the service, deliver the effects.

Run one loop per process. The store's claim is atomic, so several processes (or several loops) can run side
by side and each deadline is handled once; it is leased, so a deadline claimed by a process that is killed
fires again after the lease from another. A claim carries the chat's version; the service ignores a deadline
whose game has moved on, so a late or repeated claim does nothing.

Before its first claim for a platform, the loop catches up that platform's running games
(`bot.game.catch_up`): screens a dead process never delivered are shown again, through the same delivery as a
deadline's effects.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from bot.effects import Effect
from bot.inputs import TimerDue
from bot.platforms import PLATFORMS
from bot.service import GameService
from storage import ChatRef
from storage.errors import StoreUnavailable
from storage.store import GameStore

log = logging.getLogger("durak.timers")

LEASE = 30.0  # seconds a claimed deadline waits before another process may claim it again
CATCH_UP_AT_ONCE = 32  # running games checked (and shown again) at the same time when a platform starts

Deliver = Callable[[TimerDue, list[Effect]], Awaitable[None]]


class Adapter(Protocol):
    """A platform's running bot, as the process's turn-timer loop (`bot.timers`) sees it."""

    @property
    def platform(self) -> str:
        """Its platform id (`bot.platforms`): the chats it serves are ``ChatRef(platform, ...)``, and the
        process claims this platform's turn deadlines while the adapter is registered."""
        ...

    async def deliver_due(self, due: TimerDue, effects: list[Effect]) -> None:
        """Show the effects of a turn deadline (AI moves, timeouts, reminders) or of the start-up catch-up
        (``due.version`` 0), through the same per-chat queue as the effects of inputs."""
        ...


class Deliveries:
    """Routes the effects of a deadline to the adapter of its platform ("tg", "dc", "local").

    One process serving Telegram and Discord runs one timer loop: `durak-bot run` builds one `Deliveries`,
    hands it to each adapter, and each registers its deliver function in it when it starts (two loops in
    one process would claim each other's deadlines), and a deadline of a platform nobody serves in this
    process is logged and dropped (the
    move itself is stored; that chat's screen catches up on its next input)."""

    def __init__(self) -> None:
        self.routes: dict[str, Deliver] = {}
        self.adapters: dict[str, Adapter] = {}  # the adapters joined, by platform (readiness asks them)

    def register(self, platform: str, deliver: Deliver) -> None:
        self.routes[platform] = deliver

    def unregister(self, platform: str, deliver: Deliver) -> None:
        """An adapter stopping: its platform's deadlines due from now on wait for another process."""
        if self.routes.get(platform) == deliver:
            del self.routes[platform]

    def join(self, adapter: Adapter) -> None:
        """An adapter ready to deliver: this process claims its platform's deadlines from now on."""
        self.register(adapter.platform, adapter.deliver_due)
        self.adapters[adapter.platform] = adapter

    def leave(self, adapter: Adapter) -> None:
        self.unregister(adapter.platform, adapter.deliver_due)
        if self.adapters.get(adapter.platform) is adapter:
            del self.adapters[adapter.platform]

    @property
    def platforms(self) -> list[str]:
        """The platforms this process serves: it claims only their deadlines, never another's."""
        return sorted(self.routes)

    async def deliver(self, platform: str, chat_id: str, effects: list[Effect]) -> None:
        """Any effects of one chat, shown by its platform's adapter in this process as if they came from a
        deadline: the web front end's presses (adapters/web) are a chat's inputs made elsewhere, and their
        table and hands must change in the chat all the same."""
        await self(TimerDue(platform, chat_id, 0), effects)

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
    the lease, from whichever process claims it.

    The claimed deadlines (one per chat) are handled side by side: an AI seat's move waits for a worker
    process (`bot.runtime.ai_pool`), and one chat's AI must not hold back every other chat's deadline."""
    claimed = await store.claim_due_timers(now, limit, platforms=platforms, lease=lease, done=done or ())
    if done is not None:
        done.clear()
    outcomes = await asyncio.gather(
        *(handle_one(service, deliver, chat, version) for chat, version in claimed)
    )
    if done is not None:
        done.extend(claim for claim, outcome in zip(claimed, outcomes, strict=True) if outcome is None)
    outage = next((outcome for outcome in outcomes if outcome is not None), None)
    if outage is not None:
        raise outage  # those not given back fire again after the lease
    return len(claimed)


async def handle_one(
    service: GameService, deliver: Deliver, chat: ChatRef, version: int
) -> StoreUnavailable | None:
    """Handle and deliver one claimed deadline; the Redis outage that kept it from being handled, if one did."""
    due = TimerDue(chat.platform, chat.chat_id, version)
    try:
        effects = await service.handle_timer(due)
        if effects:
            await deliver(due, effects)
    except StoreUnavailable as outage:
        return outage
    except Exception:  # one chat's failure must not stop every other chat's timers
        log.exception("timer for %s at version %s failed", chat, version)
        service.metrics.error("timer")
    return None


async def catch_up_platform(service: GameService, platform: str, deliver: Deliver) -> int:
    """Show again what a dead process never delivered: every running game of ``platform`` whose screens lag
    the stored state (`bot.game.catch_up`), delivered like a deadline's effects (with version 0: no deadline);
    how many games were shown. `CATCH_UP_AT_ONCE` games at a time. One game's failure is logged and
    skipped; a Redis outage raises StoreUnavailable."""

    async def catch_up(chat: ChatRef) -> bool:
        try:
            effects = await service.catch_up(chat)
            if effects:
                await deliver(TimerDue(platform, chat.chat_id, 0), effects)
            return bool(effects)
        except StoreUnavailable:
            raise
        except Exception:
            log.exception("catching up %s failed", chat)
            service.metrics.error("recover")
            return False

    chats = await service.store.running_chats(platform)
    shown = 0
    for first in range(0, len(chats), CATCH_UP_AT_ONCE):
        shown += sum(await asyncio.gather(*map(catch_up, chats[first : first + CATCH_UP_AT_ONCE])))
    if shown:
        log.info("%s: %d running games shown again (their screens lagged the stored state)", platform, shown)
    return shown


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
    later from another one. Before its first claim for a platform, the loop catches up that platform's
    running games (`catch_up_platform`), so a deadline that passed while no process served them is moved
    on for a screen re-sent, not fired at a player who never saw it."""
    outage = False
    done: list[tuple[ChatRef, int]] = []
    caught_up: set[str] = set()
    while not stop_event.is_set():
        try:
            served = platforms if platforms is not None else getattr(deliver, "platforms", PLATFORMS)
            for platform in served:
                if platform not in caught_up:
                    await catch_up_platform(service, platform, deliver)
                    caught_up.add(platform)
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


async def run_own_timers(
    service: GameService,
    stop_event: asyncio.Event,
    deliver: Deliver,
    poll: float = 0.25,
    clock: Callable[[], float] = time.time,
    platforms: Sequence[str] | None = None,
) -> None:
    """`run_timers` on the service's own store: the loop an adapter runs for itself outside `durak-bot run`
    (a test, a process serving one platform), so the adapter needs no more of the store than its
    `MessageMemory`."""
    await run_timers(service, service.store, stop_event, deliver, poll, clock, platforms)


PagesChanged = Callable[[ChatRef, str, bool], Awaitable[None]]  # (chat, user id, is_open)


def resume_on_close(service: GameService, deliver: Deliver) -> PagesChanged:
    """The web adapter's listener for pages opening and closing: when a person's last page of a chat
    closes, the chat gets back what it held back for them (`GameService.app_closed`, decided in `bot.game.app_screens`), delivered like a
    deadline's effects to the chat platform's adapter."""

    async def changed(chat: ChatRef, user_id: str, is_open: bool) -> None:
        if is_open:
            return
        effects = await service.app_closed(chat, user_id)
        if effects:
            await deliver(TimerDue(chat.platform, chat.chat_id, 0), effects)

    return changed
