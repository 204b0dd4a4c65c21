"""Fast taps: how many taps on a hand drawn before the game's current step are made, and how many refused.

    python bench/fast_taps.py [--games 20] [--players 6] [--seed 1]

Every seat is a person who taps faster than their hand message is drawn again: when it is their turn they
tap a move on the hand they were sent before their previous tap was answered (one round trip behind), as
long as that hand had move buttons; otherwise they wait for the newest hand. The service runs on fakeredis,
as in the tests. Before fast taps were read (bot/game/fast_taps.py), every tap drawn before the current step
was refused as out of date. Printed: taps in all, taps drawn before the current step, and of those how many
were made and how many refused (a double tap is never made twice: tests/bot/test_fast_taps.py).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random

import fakeredis

from bot import payloads
from bot.buttons import named
from bot.context import ServiceConfig
from bot.effects import Button, Message, ShowHand
from bot.inputs import Command, Press, User
from bot.service import GameService
from bot.session import ChatSession
from core import Action, Game
from core.events import BoutStarted
from storage import ChatRef
from storage.store import RedisGameStore

CHAT = "-100"
COUNTS = ("taps", "behind", "made", "earlier_bout", "take_or_pass", "not_legal_now")


def why_refused(game: Game, payload: payloads.Payload) -> str:
    """Which rule of `bot.game.fast_taps` refused a tap drawn before the current step."""
    action = Action.parse(payload.code)
    if action.card_id < 0:
        return "take_or_pass"
    if any(isinstance(event, BoutStarted) for _step, event in game.events(since=payload.step + 1)):
        return "earlier_bout"
    return "not_legal_now"


def moves(message: Message | None) -> list[Button]:
    """The hand's move buttons (not "My hand", not the trump exchange, which is not bound to a turn)."""
    found = [b for row in (message.buttons if message else ()) for b in row if b.payload]
    return [b for b in found if (p := payloads.parse(b.payload)) is not None and p.code not in ("H", "e")]


async def one_game(
    service: GameService, store: RedisGameStore, users: list[User], rng: random.Random
) -> dict[str, int]:
    chat = ChatRef("tg", CHAT)
    newest: dict[str, Message] = {}
    behind: dict[str, Message] = {}  # the hand a person still looks at: one round trip behind
    counts = dict.fromkeys(COUNTS, 0)

    async def send(event: Command | Press) -> None:
        for effect in await service.handle(event):
            if isinstance(effect, ShowHand):
                newest[effect.user_id] = effect.message

    await send(Command("tg", CHAT, users[0], "newgame", "", chat_title="Club"))
    record = await store.load(chat)
    for user in users[1:]:
        lobby = ChatSession.decode(record.state or "").header
        await send(
            Press("tg", user, payloads.Payload(CHAT, getattr(lobby, "lobby_id", ""), 0, named("J")).encode())
        )
        record = await store.load(chat)
    lobby = ChatSession.decode(record.state or "").header
    await send(
        Press(
            "tg",
            users[0],
            payloads.Payload(CHAT, getattr(lobby, "lobby_id", ""), len(users), named("S")).encode(),
        )
    )
    for _ in range(3000):
        game = ChatSession.decode((await store.load(chat)).state or "").game
        if game is None or game.is_over or game.to_act is None:
            break
        user = users[game.to_act]
        seen = behind.get(user.id)
        hand = seen if moves(seen) else newest.get(user.id)
        buttons = moves(hand)
        if not buttons:
            break
        pressed = rng.choice(buttons)
        payload = payloads.parse(pressed.payload)
        assert payload is not None
        behind[user.id] = newest[user.id]
        await send(Press("tg", user, pressed.payload))
        after = ChatSession.decode((await store.load(chat)).state or "").game
        made = after is None or after.step > game.step
        counts["taps"] += 1
        if payload.step < game.step:
            counts["behind"] += 1
            counts["made" if made else why_refused(game, payload)] += 1
        if not made:
            behind[user.id] = newest[user.id]  # refused: they look at the hand shown again
    return counts


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    totals = dict.fromkeys(COUNTS, 0)
    for number in range(args.games):
        store = RedisGameStore(
            fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
        )
        seeds = itertools.count(args.seed * 1000 + number)
        ids = (f"g{n}" for n in itertools.count(1))
        service = GameService(
            store,
            ServiceConfig(ai_delay=0),
            new_id=lambda ids=ids: next(ids),  # type: ignore[misc]
            seed_source=lambda seeds=seeds: next(seeds),  # type: ignore[misc]
        )
        users = [User(str(seat + 1), f"P{seat + 1}") for seat in range(args.players)]
        for key, value in (await one_game(service, store, users, rng)).items():
            totals[key] += value
    print(f"{args.games} games of {args.players} people tapping one round trip behind their hand:")
    print(f"  taps {totals['taps']}, drawn before the current step {totals['behind']}")
    refused = totals["earlier_bout"] + totals["take_or_pass"] + totals["not_legal_now"]
    print(f"  of those made {totals['made']}, refused as out of date {refused}:")
    print(f"    from an earlier bout {totals['earlier_bout']}, take or pass {totals['take_or_pass']},")
    print(
        f"    no longer legal for the presser (another's turn, card gone or beaten) {totals['not_legal_now']}"
    )
    print(f"  (before fast taps were read, all {totals['behind']} were refused)")


if __name__ == "__main__":
    asyncio.run(main())
