"""`durak-bot play` in-process, its clock in the test's hands: a person types lines, the AI moves only when
the test fires its deadline, and the screen is the one a real terminal would show (redrawn in place).

The deck is stacked (tests/core/helpers.py), so each test reads like the situation it is about.
"""

from __future__ import annotations

import asyncio
import io
import itertools
from collections.abc import Callable, Sequence

import fakeredis
import pytest

import bot.game.moves
from adapters.local import CHAT_ID, PLATFORM
from adapters.local.screen import Screen
from adapters.local.terminal import PlayOptions, TerminalGame
from adapters.local.text import CLEAR_SCREEN
from bot.context import ServiceConfig
from bot.i18n import translator
from bot.inputs import TimerDue, User
from bot.platforms import PLATFORMS
from bot.service import GameService
from core import Card, Game, Settings
from storage.store import RedisGameStore

AI_DELAY = 1.0
ROUNDS = 500  # bounded waits: the loop gets this many turns to react before a test fails


class TypedLines:
    """The keyboard: lines the test types, handed to the terminal when it asks for the next one."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.asked = 0  # how many times the terminal asked for a line

    def type(self, text: str) -> None:
        self.queue.put_nowait(text)

    async def next(self) -> str | None:
        self.asked += 1
        return await self.queue.get()


def stacked_deal(monkeypatch: pytest.MonkeyPatch, deck: Sequence[Card]) -> None:
    """The next game the service starts is dealt from ``deck`` (seat 0 is the person at the terminal)."""
    deal = bot.game.moves.new_game

    def dealt_from_deck(settings: Settings, players: Sequence[str], **options: object) -> Game:
        options.pop("seed", None)
        return deal(settings, players, deck=deck, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(bot.game.moves, "new_game", dealt_from_deck)


class TerminalTable:
    """One terminal game against AI seats; `ai_moves` lets the AI's deadline come."""

    def __init__(self, lang: str = "en", players: int = 2) -> None:
        self.now = 1_000_000.0
        self.store = RedisGameStore(
            fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
        )
        ids = (f"g{n}" for n in itertools.count(1))
        self.service = GameService(
            self.store, ServiceConfig(ai_delay=AI_DELAY), clock=lambda: self.now, new_id=lambda: next(ids)
        )
        self.out = io.StringIO()
        tr = translator(lang)
        self.screen = Screen(self.out, "you", tr, redraw=True)
        self.keyboard = TypedLines()
        user = User("you", "Tess", lang)
        self.game = TerminalGame(self.service, self.screen, self.keyboard, user)
        self.options = PlayOptions(players=players, ai="easy", lang=lang)
        self.session: asyncio.Task[int] | None = None

    async def __aenter__(self) -> TerminalTable:
        self.session = asyncio.create_task(self.game.run(self.options))
        await self._until(lambda: self.keyboard.asked >= 1)  # dealt, and waiting for the first line
        return self

    async def __aexit__(self, *_exc: object) -> None:
        assert self.session is not None
        self.session.cancel()
        await asyncio.gather(self.session, return_exceptions=True)

    @property
    def frame(self) -> str:
        """What the terminal shows now: everything drawn since the last clear."""
        return self.out.getvalue().rsplit(CLEAR_SCREEN, 1)[-1]

    async def type(self, text: str) -> None:
        """Type a line and wait until the terminal has answered it and asks for the next."""
        asked = self.keyboard.asked
        self.keyboard.type(text)
        await self._until(lambda: self.keyboard.asked > asked)

    async def ai_moves(self) -> None:
        """The AI's thinking time is over: its deadline fires and the terminal gets the effects."""
        self.now += AI_DELAY
        for chat, version in await self.store.claim_due_timers(self.now, platforms=PLATFORMS):
            due = TimerDue(chat.platform, chat.chat_id, version)
            assert (due.platform, due.chat_id) == (PLATFORM, CHAT_ID)
            await self.game.deliver(due, await self.service.handle_timer(due))
        await self._settle()

    async def _until(self, condition: Callable[[], bool]) -> None:
        for _round in range(ROUNDS):
            if condition():
                await self._settle()
                return
            await asyncio.sleep(0.001)
        raise AssertionError("the terminal did not get there:\n" + self.frame)

    @staticmethod
    async def _settle() -> None:
        for _round in range(20):
            await asyncio.sleep(0)
