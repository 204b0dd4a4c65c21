"""Bot API calls per game through the fake Telegram: recorded 4- and 6-player games, human speed and fast.

    python bench/telegram_calls.py [--players 4 6] [--speed 20] [--seed 1] [--announce-after 10]

Each game is recorded first (seeded self-play of the normal AI, deterministic), then replayed through the
real bot: the same deal (the service gets the same seed), and people tap the recorded moves' buttons in
their private chats. "human": one tap every 1.5 virtual seconds; "fast": each tap as soon as its button is
on screen. The fake's virtual clock runs ``--speed`` times real time and the bot paces by it, so the
per-minute figures are Telegram minutes, and so are the service's: how long a player waited decides whether
their turn is announced (their hand sent anew, the old one deleted; ``--announce-after inf``: never, as
before announcing). Printed per game: Bot API calls (by method; each delete is an announced hand's old
message), calls per action, messages (sends + edits) in the group and the highest count in any 60 seconds, 429s, and the game's length.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import fakeredis  # noqa: E402

from bot import payloads  # noqa: E402
from bot.ai_seats import choose_ai_action  # noqa: E402
from bot.context import ServiceConfig  # noqa: E402
from core import Settings, new_game  # noqa: E402
from tests.fakes.telegram_api import FakeTelegram  # noqa: E402
from tests.telegram.world import World  # noqa: E402

NAMES = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fay"]
TAP_EVERY = 1.5  # virtual seconds between taps at human speed
WORDS = "transfer"
CALLS = ("sendMessage", "editMessageText", "deleteMessage", "answerCallbackQuery")  # the calls counted
WRITES = ("sendMessage", "editMessageText", "deleteMessage")  # the calls that write a message


@dataclass
class Run:
    players: int
    mode: str
    actions: int
    calls: Counter[str]
    group_messages: int
    group_max_per_minute: int
    rate_limited: int
    refused: int
    virtual_seconds: float
    real_seconds: float


def record(players: int, seed: int) -> list[tuple[int, str]]:
    """A whole game of the normal AI against itself, as (seat, action code)."""
    game = new_game(Settings.from_words(WORDS), NAMES[:players], seed=seed)
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        game = game.apply(seat, choose_ai_action(game, seat, "normal", f"bench{seed}"))
    return list(game.log)


async def button_for(
    world: World, seat_user: object, step: int, code: str, timeout: float = 10.0, refused: str = ""
) -> tuple[int, str]:
    """Wait until the player's hand shows the move's button: (message id, callback data). A hand left as it
    was after the player's own press shows buttons drawn a step or more ago; a person taps what they see, so
    the button of an earlier step counts, unless pressing it was just refused (``refused``)."""
    deadline = time.monotonic() + timeout
    while True:
        hand = world.hand(seat_user)  # type: ignore[arg-type]
        if hand is not None:
            for button in hand.buttons():
                data = button.get("callback_data", "")
                parsed = payloads.parse(data)
                if parsed and parsed.code == code and parsed.step <= step and data != refused:
                    return hand.message_id, data
        if time.monotonic() > deadline:
            raise AssertionError(f"no button for {code} at step {step}")
        await asyncio.sleep(0.0005)


async def play(players: int, mode: str, speed: float, seed: int, announce_after: float) -> Run:
    log = record(players, seed)
    fake = FakeTelegram()
    await fake.start()
    redis = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    config = ServiceConfig(ai_delay=0, announce_after=announce_after)
    world = World(fake, redis, speed=speed, seed=seed, service_config=config, virtual_time=True)
    try:
        await world.start()
        people = [world.person(name) for name in NAMES[:players]]
        group = fake.add_group("Durak club", people, owner=people[0])
        await world.settle()
        fake.calls.clear()
        started_at, real_start = fake.clock.now(), time.perf_counter()
        await world.say(group, people[0], f"/newgame {WORDS}")
        lobby = world.newest(group, "New game")
        for person in people[1:]:
            await world.tap(group, lobby, person, "Join")
        await world.tap(group, lobby, people[0], "Start")
        next_tap, refused = fake.clock.now(), 0
        for step, (seat, code) in enumerate(log):
            message_id, data = await button_for(world, people[seat], step, code)
            if mode == "human":
                next_tap += TAP_EVERY
                await fake.clock.sleep(next_tap - fake.clock.now())
                message_id, data = await button_for(world, people[seat], step, code)  # as shown now
            while True:
                query = fake.user_presses(people[seat], message_id, people[seat], data)
                answer = await fake.wait_for_answer(query)
                assert not answer.show_alert, answer.text
                if "out of date" not in (answer.text or ""):
                    break
                refused += 1  # tapped on a hand drawn before the move: it is drawn again, tap again
                message_id, data = await button_for(world, people[seat], step, code, refused=data)
        await world.settle(30)
        assert "Game over" in world.newest(group).text
        fake.assert_no_bad_requests()
        group_times = fake.send_times.get(group.id, [])
        return Run(
            players,
            mode,
            len(log),
            Counter(fake.calls),
            len(group_times),
            fake.max_group_messages_per_minute(group),
            len(fake.rate_limited),
            refused,
            fake.clock.now() - started_at,
            time.perf_counter() - real_start,
        )
    finally:
        await world.stop()
        await fake.close()
        await redis.aclose()


def report(runs: list[Run]) -> None:
    header = (
        f"{'players':>7} {'mode':>5} {'actions':>7} {'calls':>6} {'/action':>7} {'send':>5} {'edit':>5} "
        f"{'delete':>6} {'answer':>6} {'writes':>6} {'/action':>7} {'updates':>7} {'group':>5} {'max/min':>7} "
        f"{'429':>4} {'stale':>5} {'game':>8} {'real':>6}"
    )
    print(header)
    for run in runs:
        calls = run.calls
        sent = sum(calls[method] for method in CALLS)
        writes = sum(calls[method] for method in WRITES)
        print(
            f"{run.players:>7} {run.mode:>5} {run.actions:>7} {sent:>6} {sent / run.actions:>7.2f} "
            f"{calls['sendMessage']:>5} {calls['editMessageText']:>5} {calls['deleteMessage']:>6} "
            f"{calls['answerCallbackQuery']:>6} {writes:>6} {writes / run.actions:>7.2f} "
            f"{calls['getUpdates']:>7} {run.group_messages:>5} {run.group_max_per_minute:>7} "
            f"{run.rate_limited:>4} {run.refused:>5} {run.virtual_seconds / 60:>6.1f}min {run.real_seconds:>5.1f}s"
        )
    print(
        "calls: sendMessage + editMessageText + deleteMessage + answerCallbackQuery for the whole game "
        "(lobby included; a delete is an announced hand's old message); writes: the message writes among "
        "them (sends, edits, deletes); stale: taps refused as out of date and made again on the hand drawn anew; "
        "updates: getUpdates long polls; group: messages the group got (sends + edits); max/min: the most "
        "in any 60 s; game: virtual (Telegram) minutes from /newgame to the result."
    )


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, nargs="+", default=[4, 6])
    parser.add_argument("--speed", type=float, default=20.0, help="virtual seconds per real second")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--announce-after",
        type=float,
        default=ServiceConfig.announce_after,
        help="seconds a player waits before their turn is announced (inf: never)",
    )
    args = parser.parse_args()
    runs = []
    for players in args.players:
        for mode in ("human", "fast"):
            runs.append(await play(players, mode, args.speed, args.seed, args.announce_after))
    report(runs)


if __name__ == "__main__":
    asyncio.run(main())
