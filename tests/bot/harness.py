"""Drive `GameService` like a chat would: people send commands and tap the buttons they were shown."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from bot.context import ServiceConfig
from bot.effects import Alert, Button, Effect, Message, Notice, Reply, ShowHand, ShowTable
from bot.inputs import Command, Press, TimerDue, User
from bot.platforms import PLATFORMS
from bot.service import GameService
from storage.store import RedisGameStore

CHAT = "-100"


@dataclass
class Screen:
    """What each audience sees now: the chat's table, each user's hand, and everything else received."""

    table: Message | None = None
    hands: dict[str, Message] = field(default_factory=dict)
    notices: list[Message] = field(default_factory=list)
    replies: list[Message] = field(default_factory=list)
    alerts: list[Alert] = field(default_factory=list)

    def take(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, ShowTable):
                self.table = effect.message
            elif isinstance(effect, ShowHand):
                self.hands[effect.user_id] = effect.message
            elif isinstance(effect, Notice):
                self.notices.append(effect.message)
            elif isinstance(effect, Reply):
                self.replies.append(effect.message)
            elif isinstance(effect, Alert):
                self.alerts.append(effect)


def buttons(message: Message | None) -> list[Button]:
    return [b for row in (message.buttons if message else ()) for b in row]


def button(message: Message | None, label: str) -> Button:
    for candidate in buttons(message):
        if candidate.label == label:
            return candidate
    raise AssertionError(f"no button {label!r} in {[b.label for b in buttons(message)]}")


class Harness:
    def __init__(
        self,
        store: RedisGameStore,
        ai_delay: float = 0.0,
        seed: int = 42,
        platform: str = "tg",
        chat: str = CHAT,
    ) -> None:
        self.clock = 1_000_000.0
        self.chat = chat
        ids = (f"g{i}" for i in itertools.count(1))
        self.store = store
        self.platform = platform
        self.service = GameService(
            store,
            ServiceConfig(ai_delay=ai_delay),
            clock=lambda: self.clock,
            new_id=lambda: next(ids),
            seed_source=lambda: seed,
            salt_source=lambda: f"{seed:016x}" * 2,  # fixed, so the golden transcripts show the same seal
        )
        self.screen = Screen()
        self.last: list[Effect] = []

    async def command(self, user: User, name: str, words: str = "", **extra: object) -> list[Effect]:
        extra.setdefault("chat_title", "Club")
        command = Command(self.platform, self.chat, user, name, words, **extra)  # type: ignore[arg-type]
        return await self._run(self.service.handle(command))

    async def press(self, user: User, payload: str) -> list[Effect]:
        return await self._run(self.service.handle(Press(self.platform, user, payload)))

    async def tap(self, user: User, label: str, where: str = "table") -> list[Effect]:
        message = self.screen.table if where == "table" else self.screen.hands.get(user.id)
        return await self.press(user, button(message, label).payload)

    async def surrender(self, user: User) -> list[Effect]:
        """`/leave` during a game, then the one button of the question it answers with (rules.md §7.7)."""
        asked = [e for e in await self.command(user, "leave") if isinstance(e, Reply)]
        assert len(asked) == 1 and buttons(asked[0].message), asked
        return await self.press(user, buttons(asked[0].message)[0].payload)

    async def fire_timers(self) -> list[Effect]:
        effects: list[Effect] = []
        for chat, version in await self.store.claim_due_timers(self.clock, platforms=PLATFORMS):
            effects += await self._run(self.service.handle(TimerDue(chat.platform, chat.chat_id, version)))
        return effects

    async def version(self) -> int:
        from storage import ChatRef

        return (await self.store.load(ChatRef(self.platform, self.chat))).version

    async def _run(self, pending: object) -> list[Effect]:
        effects = await pending  # type: ignore[misc]
        self.last = effects
        self.screen.take(effects)
        return effects
