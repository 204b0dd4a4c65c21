"""`durak-bot demo`: a game with no person at the keyboard, printed as the group chat would see it.

The seats are ordinary players ("Ann", "Boris", ...) whose buttons are pressed for them with the move the
bot's own AI picks for their seat (`bot.queries.next_move`, from that seat's view only), so the game goes
through the very path a chat's presses take, and `/stats` afterwards has rows to show. A fresh in-memory
store, and on it the service of `bot.self_play.self_play_service` (a fixed clock, fixed ids, the seed), make
the same command print the same game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

import fakeredis

from adapters.local import CHAT_ID, PLATFORM
from adapters.local.screen import find_button
from adapters.local.text import message_text, payload_buttons
from bot.adapter import (
    Alert,
    ChatRef,
    Command,
    Effect,
    Notice,
    Press,
    RedisGameStore,
    Reply,
    ShowHand,
    ShowTable,
    User,
    buttons,
    payloads,
    self_play_service,
)
from core import Action

NAMES = ("Ann", "Boris", "Chiara", "Dmitri", "Elena", "Fyodor")
MAX_PRESSES = 5000  # a game is a few hundred moves; this bounds a bug, not a game


@dataclass(frozen=True)
class DemoOptions:
    words: str = ""
    players: int = 3
    seed: int = 1
    ai: str = "normal"
    brief: bool = False


class DemoPrinter:
    """Prints every new table message, the game-over notice and replies, separated like chat messages."""

    def __init__(self, out: TextIO, brief: bool) -> None:
        self.out = out
        self.brief = brief
        self.last_table = ""

    def show(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, ShowTable):
                text = message_text(effect.message)
                if text != self.last_table:
                    self.last_table = text
                    if not self.brief:
                        self.out.write(text + "\n\n")
            elif isinstance(effect, Notice):
                if self.brief and self.last_table:
                    self.out.write(self.last_table + "\n\n")
                self.out.write(message_text(effect.message) + "\n\n")


async def run_demo(options: DemoOptions, out: TextIO) -> int:
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    try:
        return await play_demo(RedisGameStore(client), options, out)
    finally:
        await client.aclose()


async def play_demo(store: RedisGameStore, options: DemoOptions, out: TextIO) -> int:
    service = self_play_service(store, options.seed)
    users = [User(f"p{n}", name) for n, name in enumerate(NAMES[: options.players], start=1)]
    printer = DemoPrinter(out, options.brief)
    host = users[0]

    async def command(name: str, words: str = "") -> list[Effect]:
        event = Command(PLATFORM, CHAT_ID, host, name, words, chat_title="demo", is_admin=True, private=True)
        return await service.handle(event)

    await command("settings", "timer=0")
    effects = await command("newgame", options.words)
    lobby = next((e.message for e in effects if isinstance(e, ShowTable)), None)
    if lobby is None:
        out.write("\n".join(message_text(e.message) for e in effects if isinstance(e, Reply)) + "\n")
        return 2
    for user in users[1:]:
        join = find_button(lobby, buttons.Join())
        assert join is not None
        effects = await service.handle(Press(PLATFORM, user, join.payload))
        refused = [e.text for e in effects if isinstance(e, Alert) and e.show_alert]
        if refused:
            out.write(f"{user.name}: {refused[0]}\n")
            return 2
        lobby = next((e.message for e in effects if isinstance(e, ShowTable)), lobby)
    start = find_button(lobby, buttons.Start())
    assert start is not None
    effects = await service.handle(Press(PLATFORM, host, start.payload))
    printer.show(effects)
    hands = hand_buttons({}, effects)
    chat = ChatRef(PLATFORM, CHAT_ID)
    for _press in range(MAX_PRESSES):
        if any(isinstance(e, Notice) for e in effects):
            break
        move = await service.queries.self_play_move(chat, options.ai)
        seat_user, payload = seat_move(move, users, hands)
        effects = await service.handle(Press(PLATFORM, seat_user, payload))
        printer.show(effects)
        hands = hand_buttons(hands, effects)
    else:
        out.write(f"The demo stopped after {MAX_PRESSES} moves without a result.\n")
        return 1
    for effect in await command("stats"):
        if isinstance(effect, Reply):
            out.write(message_text(effect.message) + "\n")
    out.write(
        f"\n(durak-bot demo {options.words + ' ' if options.words else ''}"
        f"--players {options.players} --seed {options.seed} prints this game again)\n"
    )
    return 0


def hand_buttons(hands: dict[str, dict[str, str]], effects: list[Effect]) -> dict[str, dict[str, str]]:
    """Each player's current hand message, as {action code: payload} of its buttons."""
    hands = dict(hands)
    for effect in effects:
        if isinstance(effect, ShowHand):
            codes = {}
            for button in payload_buttons(effect.message):
                payload = payloads.parse(button.payload)
                if payload is not None:
                    codes[buttons.code(payload.button)] = button.payload
            hands[effect.user_id] = codes
    return hands


def seat_move(
    move: tuple[str, Action] | None, users: list[User], hands: dict[str, dict[str, str]]
) -> tuple[User, str]:
    """The person ``move`` is for and the button on their hand message that makes it."""
    if move is None:
        raise RuntimeError("the demo game is not waiting for a move")
    user_id, action = move
    user = next(u for u in users if u.id == user_id)
    payload = hands.get(user.id, {}).get(action.code)
    if payload is None:
        raise RuntimeError(f"{user.name}'s hand message has no button for {action.code}")
    return user, payload
