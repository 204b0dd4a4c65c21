"""A Discord channel with the Durak bot in it, driven the way people drive it: slash commands and buttons.

Everything goes through the fake Discord (REST on loopback, hand-built gateway events) into the real
discord.py client running the adapter, then into the game service on fakeredis.
"""

from __future__ import annotations

import itertools
import re
import time
from functools import partial
from typing import Any

from adapters.discord.app import DiscordSettings, DurakDiscordClient
from bot.context import ServiceConfig
from bot.runtime.metrics import Metrics
from bot.service import GameService
from bot.session import ChatSession
from storage import ChatRef
from storage.presence import open_pages
from storage.store import RedisGameStore
from tests.fakes.discord_gateway import FakeDiscord
from tests.fakes.discord_store import FakeUser, Interaction

CARD_CODE = re.compile(r"[2-9TJQKA][SHDC]")


class Table:
    def __init__(
        self,
        fake: FakeDiscord,
        store: RedisGameStore,
        ai_delay: float = 0.0,
        seed: int = 7,
        metrics: Metrics | None = None,
    ) -> None:
        self.fake, self.store, self.metrics = fake, store, metrics
        self.ai_delay, self.seed = ai_delay, seed
        self._ids = (f"g{n}" for n in itertools.count(1))
        self.guild = fake.add_guild("Club", channels=("durak",))
        self.channel = self.guild.channel_ids[0]
        self.client: DurakDiscordClient | None = None
        self.clients: list[DurakDiscordClient] = []
        self.skipped = 0.0  # seconds the test moved the clock on (turn timers)
        self.app_platforms: frozenset[str] = frozenset()  # {"dc"}: the channel offers the Activity

    def clock(self) -> float:
        return time.time() + self.skipped

    def new_client(self, **options: Any) -> DurakDiscordClient:
        service = GameService(
            self.store,
            ServiceConfig(ai_delay=self.ai_delay, app_platforms=self.app_platforms),
            new_id=lambda: next(self._ids),
            seed_source=lambda: self.seed,
            clock=self.clock,
            metrics=self.metrics,
            on_app=partial(open_pages, self.store.redis),  # as `durak-bot run` wires it
        )
        settings = DiscordSettings(_env_file=None)  # type: ignore[call-arg]
        return DurakDiscordClient(service, self.store, settings, clock=self.clock, **options)

    async def start(self, **options: Any) -> DurakDiscordClient:
        self.client = await self.fake.connect(self.new_client(**options))  # type: ignore[assignment]
        assert self.client is not None
        self.clients.append(self.client)
        if len(self.clients) == 1:
            await self.client.sync_commands()
        return self.client

    async def restart(self, **options: Any) -> DurakDiscordClient:
        """The bot process goes away and a fresh one (new client, new service) starts on the same Redis."""
        assert self.client is not None
        await self.settle()
        await self.fake.disconnect(self.client)
        return await self.start(**options)

    async def settle(self) -> None:
        assert self.client is not None
        await self.client.flow.settled()
        await self.fake.wait_idle(quiet=0.01)
        await self.client.flow.settled()

    # ---- people acting -------------------------------------------------------------------------------

    async def slash(self, user: FakeUser, sub: str, **options: Any) -> dict[str, Any]:
        interaction = self.fake.slash(user, self.channel, "durak", sub, options)
        callback = await self.fake.wait_for_callback(interaction)
        await self.settle()
        return callback

    async def press(self, user: FakeUser, message: dict[str, Any], custom_id: str) -> Interaction:
        interaction = self.fake.press(user, message, custom_id)
        await self.fake.wait_for_callback(interaction)
        await self.settle()
        return interaction

    async def press_label(self, user: FakeUser, message: dict[str, Any], label: str) -> Interaction:
        return await self.press(user, message, custom_id_of(message, label))

    # ---- what people see -----------------------------------------------------------------------------

    async def table_message(self) -> dict[str, Any]:
        record = await self.store.load(ChatRef("dc", self.channel))
        message_id = record.messages["table"].rpartition(":")[2]
        return self.fake.messages[message_id].data

    def hand_of(self, user: FakeUser) -> dict[str, Any] | None:
        """The user's newest ephemeral message that shows a hand."""
        hands = [m for m in self.fake.ephemeral_for(user) if "Your cards" in text_of(m)]
        return hands[-1] if hands else None

    async def session(self) -> ChatSession | None:
        record = await self.store.load(ChatRef("dc", self.channel))
        return ChatSession.decode(record.state) if record.state else None


def buttons_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [button for row in message.get("components") or [] for button in row.get("components") or []]


def labels_of(message: dict[str, Any]) -> list[str]:
    return [b.get("label", "") for b in buttons_of(message)]


def custom_id_of(message: dict[str, Any], label: str) -> str:
    for button in buttons_of(message):
        if button.get("label") == label:
            return str(button["custom_id"])
    raise AssertionError(f"no button {label!r} on the message; it has {labels_of(message)}")


def text_of(message: dict[str, Any]) -> str:
    parts = [message.get("content") or ""]
    for embed in message.get("embeds") or []:
        parts += [embed.get("title") or "", embed.get("description") or ""]
    return "\n".join(parts)
