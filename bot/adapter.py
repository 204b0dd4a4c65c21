"""The adapter contract: what a chat platform provides to `durak-bot run`, and the little it gets in return.

An adapter translates and delivers, nothing more (the rules and every decision are in `bot/`). To be served
it provides:

- a row in `SERVED_PLATFORMS` (`bot.platforms`): its platform id, the setting holding its token, where its
code lives;
- an entry function, `RunPlatform`, that serves the platform until cancelled;
- a running `Adapter`: its platform id and the delivery of effects nobody's input asked for (turn
  deadlines, start-up catch-up), registered in the process's `Deliveries` once it can deliver.

It gets the `GameService` (every input goes to `service.handle`; what the stored games show between inputs
is asked of `service.queries`, `bot.queries`) and a `MessageMemory`, the three store calls an adapter makes to
remember which messages it edits and which screens it delivered: never the whole store. See
docs/adapters.md for how to add a platform.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, Protocol

from bot.platforms import SERVED_PLATFORMS, ServedPlatform
from bot.runtime.config import BotConfig
from bot.service import GameService
from bot.timers import Adapter, Deliveries
from storage.keys import DISCORD, LOCAL, TELEGRAM, ChatRef
from storage.models import ChatRecord

__all__ = [
    "DISCORD",
    "LOCAL",
    "SERVED_PLATFORMS",
    "TELEGRAM",
    "Adapter",
    "MessageMemory",
    "RunPlatform",
    "ServedPlatform",
]


class MessageMemory(Protocol):
    """The store as an adapter sees it. A chat's ``messages`` hash holds the ids of the messages the adapter
    edits ("table", "hand:<user>") and the screens it delivered (`bot.outbox`); it expires with the game.
    `storage.store.GameStore` provides these calls."""

    async def load(self, chat: ChatRef) -> ChatRecord:
        """The chat's record: its ``messages`` and ``lang`` are what an adapter reads."""
        ...

    async def set_messages(self, chat: ChatRef, updates: dict[str, str | None]) -> None:
        """Set (a string) or delete (None) fields of the chat's ``messages`` hash."""
        ...

    async def migrate_chat(self, old: ChatRef, new: ChatRef) -> None:
        """The platform moved a chat to a new id (a Telegram group upgraded to a supergroup)."""
        ...


class RunPlatform(Protocol):
    """The entry function `durak-bot run` calls for each platform whose token is set, all in one process on
    one service. It builds the platform's `Adapter`, connects, then joins the process's turn-timer loop,
    ``deliveries.join(adapter)`` (not before it can deliver), serves
    until cancelled (Ctrl-C, SIGTERM), and on the way out unregisters and lets queued messages go out for a
    few seconds (``deliveries.leave(adapter)``). A token the platform refuses raises the exception named in
    its `ServedPlatform`.
    ``store`` is the full store, passed on to the adapter as the `MessageMemory` it needs. ``live`` is the
    Redis client saved changes are published on (`storage.keys.live_channel`), for a platform that serves
    the web front end's pages beside it (Telegram's Mini App); the others ignore it."""

    def __call__(
        self,
        config: BotConfig,
        service: GameService,
        store: MessageMemory,
        deliveries: Deliveries,
        /,
        *,
        live: Any = None,
    ) -> Awaitable[None] | None: ...
