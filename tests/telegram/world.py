"""The bot under test against the fake Telegram: start it, let simulated people act, wait until it settled.

`World.settle()` waits until the bot has handled every update the fake queued and its delivery queues are
empty, so a test acts like people who read the screen before tapping.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import socket
import time
from functools import partial
from typing import Any

from telegram import Update
from telegram.ext import TypeHandler

from adapters.telegram.app import TelegramBot
from bot import payloads
from bot.context import ServiceConfig
from bot.runtime.config import BotConfig
from bot.runtime.metrics import Metrics
from bot.service import GameService
from bot.session import ChatSession, Finished, Playing
from core import Action, Game, Kind, Settings, new_game
from core.cards import CARDS, Card
from storage import ChatRef
from storage.presence import open_pages
from storage.store import RedisGameStore
from tests.fakes.telegram_api import Clock, FakeTelegram
from tests.fakes.telegram_model import FakeChat, FakeUser, StoredMessage

SPEED = 1000  # virtual seconds per real second: a minute of Telegram's limits in 60 ms
CARD_RE = re.compile(r"(10|[2-9JQKA])([♠♥♦♣])")
SUITS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class World:
    def __init__(
        self,
        fake: FakeTelegram,
        redis: Any,
        webhook: bool = False,
        speed: float = SPEED,
        seed: int = 7,
        service_config: ServiceConfig | None = None,
        virtual_time: bool = False,
        metrics: Metrics | None = None,
    ) -> None:
        """``virtual_time``: the service's clock (turn timers, how long a player waited) runs with the fake's
        virtual clock, as people at ``speed`` would see it, instead of real time."""
        self.fake = fake
        fake.clock = Clock(speed=speed)
        self.store = RedisGameStore(redis)
        self.offset = 0.0  # seconds added to the service's clock (turn timers)
        self.virtual_time = virtual_time
        self.epoch = time.time()
        ids = (f"g{n}" for n in itertools.count(1))
        seeds = itertools.count(seed)
        self.service = GameService(
            self.store,
            service_config or ServiceConfig(ai_delay=0),
            clock=self.service_now,
            new_id=lambda: next(ids),
            seed_source=lambda: next(seeds),
            metrics=metrics,
            on_app=partial(open_pages, redis),  # as `durak-bot run` wires it
        )
        self.webhook = webhook
        port = free_port()
        self.config = BotConfig(
            _env_file=None,  # type: ignore[call-arg]
            telegram_token=fake.token,
            telegram_api_url=fake.base_url,
            webhook_url=f"http://127.0.0.1:{port}/telegram-hook" if webhook else None,
            port=port,
            webhook_secret="test-secret_1",
        )
        self.bot = TelegramBot(self.config, self.service, self.store, clock=fake.clock, live=redis)
        self.handled: set[int] = set()
        self.bot.application.add_handler(TypeHandler(Update, self._handled), group=99)
        self.rng = random.Random(seed)
        self.started = False

    def service_now(self) -> float:
        if self.virtual_time:
            return self.epoch + self.fake.clock.now() + self.offset
        return time.time() + self.offset

    async def _handled(self, update: Update, context: object) -> None:
        self.handled.add(update.update_id)

    async def start(self) -> None:
        await self.bot.start(
            webhook=self.webhook,
            listen="127.0.0.1",
            own_timer_loop=True,
            timer_poll=0.02,
            timer_clock=self.service_now,
        )
        self.started = True

    async def stop(self) -> None:
        if self.started:
            self.started = False
            await self.bot.stop()

    async def settle(self, timeout: float = 10.0) -> None:
        """Every queued update handled and every resulting message sent."""
        wanted = set(self.fake.all_updates)
        deadline = time.monotonic() + timeout
        while not wanted <= self.handled:
            assert time.monotonic() < deadline, f"the bot did not handle updates {wanted - self.handled}"
            await asyncio.sleep(0.001)
        await self.bot.delivery.wait_idle(timeout)

    # ---- people -----------------------------------------------------------------------------------

    def person(self, name: str, started: bool = True, **options: Any) -> FakeUser:
        user = self.fake.add_user(name, **options)
        if started:
            self.fake.user_starts(user)
        return user

    async def say(
        self, chat: FakeChat | FakeUser, user: FakeUser, text: str, thread: int | None = None
    ) -> None:
        self.fake.user_sends(chat, user, text, thread_id=thread)
        await self.settle()

    async def tap(self, chat: FakeChat | FakeUser, message: StoredMessage, user: FakeUser, label: str) -> Any:
        """Tap a button by its label (a URL button follows the deep link); returns the answer if any."""
        result = self.fake.press_button(chat, message.message_id, user, label)
        await self.settle()
        if isinstance(result, str):
            return self.fake.callback_answers[result]
        return None

    async def surrender(self, group: FakeChat, user: FakeUser, thread: int | None = None) -> None:
        """`/leave` typed in the group, then "Yes, surrender" in the question sent to the private chat."""
        await self.say(group, user, "/leave", thread=thread)
        await self.tap(user, self.newest(user, "Surrender?"), user, "Yes, surrender")

    def newest(self, chat: FakeChat | FakeUser, containing: str = "") -> StoredMessage:
        found = [m for m in self.fake.bot_messages(chat.id) if containing in m.text]
        assert found, f"no bot message containing {containing!r} in chat {chat.id}"
        return found[-1]

    def hand(self, user: FakeUser) -> StoredMessage | None:
        """The player's newest hand message: the last private message with move buttons."""
        for message in reversed(self.fake.bot_messages(user.id)):
            if message.buttons() and any("callback_data" in b for b in message.buttons()):
                return message
        return None

    def acting(self, players: list[FakeUser]) -> FakeUser:
        """Of ``players``, the one to act: whose hand shows the newest move buttons (a hand left as it was
        after its player's own press keeps older ones, docs/telegram.md §3)."""
        shown = [(drawn_at(hand), p) for p in players if (hand := self.hand(p)) is not None]
        assert shown, "nobody has move buttons"
        return max(shown, key=lambda pair: pair[0])[1]

    async def press_first_move(self, players: list[FakeUser]) -> None:
        """The player to act taps the first of their move buttons; then the bot settles."""
        mover = self.acting(players)
        hand = self.hand(mover)
        assert hand is not None
        data = next(b["callback_data"] for b in hand.buttons() if "callback_data" in b)
        await self.fake.wait_for_answer(self.fake.user_presses(mover, hand.message_id, mover, data))
        await self.settle()

    async def session(self, chat: FakeChat) -> ChatSession | None:
        record = await self.store.load(ChatRef("tg", str(chat.id)))
        return ChatSession.decode(record.state) if record.state else None

    async def play_to_end(self, chat: FakeChat, players: list[FakeUser], max_moves: int = 1500) -> int:
        """People tap a random move button in their private chats until the game is over."""
        for moves in range(max_moves):
            session = await self.session(chat)
            if session is not None and isinstance(session.header, Finished):
                return moves
            assert session is not None and isinstance(session.header, Playing), "the game vanished"
            choices = [
                (player, message, button)
                for player in players
                if (message := self.hand(player)) is not None
                for button in message.buttons()
                if "callback_data" in button
            ]
            assert choices, "nobody has a move button, but the game is running"
            player, message, button = self.rng.choice(choices)
            query = self.fake.user_presses(player, message.message_id, player, button["callback_data"])
            answer = await self.fake.wait_for_answer(query)
            assert not answer.show_alert, f"{player.first_name} tapped {button['text']}: {answer.text}"
            await self.settle()
        raise AssertionError(f"no result after {max_moves} moves")

    # ---- what every run must respect -----------------------------------------------------------------

    async def public_cards(self, game_id: str) -> set[str]:
        """Every card the table ever showed in an archived game."""
        archived = await self.store.archived_game(game_id)
        assert archived is not None, f"game {game_id} was not archived"
        data = json.loads(archived)
        deck = [Card.parse(c) for c in data["deck"]] if data["deck"] else None
        start = new_game(
            Settings.from_words(data["words"]), data["players"], seed=data["seed"], deck=deck,
            dealer=data["dealer"], last_durak=data["last_durak"],
        )  # fmt: skip
        return replayed_public_cards(start, [(seat, code) for seat, code in data["log"]])

    async def public_cards_now(self, chat: FakeChat) -> set[str]:
        """Every card the table showed so far in the chat's running game."""
        session = await self.session(chat)
        assert session is not None and session.game is not None
        game = session.game
        deck = None if game.seed is not None else [CARDS[c] for c in game.deck_order]
        start = new_game(
            game.settings, list(game.players), seed=game.seed, deck=deck, dealer=game.dealer,
            last_durak=game.last_durak,
        )  # fmt: skip
        return replayed_public_cards(start, list(game.log))

    async def check_rules(self, group: FakeChat, game_ids: list[str], running: bool = False) -> None:
        """No hand card in the group, within 20 messages a minute, no Bad Request, every press answered."""
        public: set[str] = await self.public_cards_now(group) if running else set()
        for game_id in game_ids:
            public |= await self.public_cards(game_id)
        shown = {"".join(match) for text in self.fake.group_texts(group) for match in CARD_RE.findall(text)}
        assert shown <= public, f"the group saw cards nobody played: {sorted(shown - public)}"
        assert self.fake.max_group_messages_per_minute(group) <= 20
        self.fake.assert_no_bad_requests()
        assert self.fake.unanswered_queries() == []
        assert self.fake.invalid_deep_links == []
        assert all(answer.delay < 1.0 for answer in self.fake.callback_answers.values())


def replayed_public_cards(game: Game, log: list[tuple[int, str]]) -> set[str]:
    """The turned-up trump, every card played, covered or transferred, and a trump swapped for it."""
    public = {game.view(None).deal_trump_card.symbol}
    for seat, code in log:
        action = Action.parse(code)
        before = game.view(seat).hand
        game = game.apply(seat, action)
        if action.card is not None:
            public.add(action.card.symbol)
        if action.kind is Kind.EXCHANGE:
            public.update(card.symbol for card in set(before) - set(game.view(seat).hand))
    return public


def drawn_at(hand: StoredMessage) -> int:
    """The game step the newest move button of a hand message was drawn at (`bot.payloads`)."""
    parsed = [payloads.parse(b["callback_data"]) for b in hand.buttons() if "callback_data" in b]
    return max((payload.step for payload in parsed if payload is not None), default=-1)
