"""No message outlives what it said (docs/telegram.md §3): a turn's reminder goes once that turn has passed,
whether it was sent already or still waits; Start answers with who is playing; the answer to a join keeps
its place before the deal's hands."""

from __future__ import annotations

import asyncio

from adapters.telegram.delivery import Delivery
from adapters.telegram.memory import ChatMemory
from bench.memory import MemoryStore
from bot.effects import TURN_REMINDER, Reply, Retract, ShowHand
from bot.session import Playing
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.telegram.test_games import open_lobby
from tests.telegram.test_queues import GROUP, ManualClock, RecordingBot, settled, text
from tests.telegram.world import World

LEFT = "left for your move"


def reminders(world: World, person: FakeUser) -> list[str]:
    """The reminders still in the person's private chat (not the hand, which shows the time left too)."""
    return [
        m.text for m in world.fake.bot_messages(person.id) if LEFT in m.text and "Your cards" not in m.text
    ]


async def a_dealt_game(world: World) -> tuple[FakeChat, list[FakeUser], FakeUser]:
    """Ann and Bob's game, dealt: the group, the people, and who acts first."""
    group, people = await open_lobby(world, "", ["Ann", "Bob"])
    await world.tap(group, world.newest(group, "New game"), people[0], "Start")
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    acting = session.header.seats[session.game.to_act or 0].user_id
    return group, people, next(person for person in people if str(person.id) == acting)


async def press_a_move(world: World, person: FakeUser) -> None:
    """The person taps the first move on their hand."""
    hand = world.hand(person)
    assert hand is not None
    data = next(b["callback_data"] for b in hand.buttons() if "callback_data" in b)
    await world.fake.wait_for_answer(world.fake.user_presses(person, hand.message_id, person, data))
    await world.settle()


async def until(world: World, done: object, what: str) -> None:
    deadline = asyncio.get_running_loop().time() + 5
    while not done():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, f"never: {what}"
        await asyncio.sleep(0.01)
    await world.settle()


async def run(clock: ManualClock, sender: Delivery, seconds: float) -> None:
    """The clock moves on a second at a time until everything queued is sent."""
    for _ in range(int(seconds)):
        await settled(lambda: True)
        clock.advance(1.0)
    await settled(lambda: not sender.queues)


async def step(world: World, group: FakeChat) -> int:
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    return session.game.step


async def test_a_turn_reminder_is_deleted_when_the_turn_it_was_about_passes(world: World) -> None:
    group, people, away = await a_dealt_game(world)
    dealt = await step(world, group)
    world.offset += 46  # 60 s a turn: 14 left
    await until(world, lambda: reminders(world, away), "the reminder")
    assert len(reminders(world, away)) == 1
    world.offset += 15  # she never moved: the clock moves for her
    moved = False

    async def timed_out() -> None:
        nonlocal moved
        moved = await step(world, group) > dealt

    while not moved:
        await timed_out()
        await asyncio.sleep(0.01)
    await world.settle()
    assert reminders(world, away) == [], "her turn passed: the reminder of it went with it"
    world.fake.assert_no_bad_requests()


async def test_a_reminder_is_deleted_when_its_player_moves(world: World) -> None:
    group, people, mover = await a_dealt_game(world)
    world.offset += 46
    await until(world, lambda: reminders(world, mover), "the reminder")
    await press_a_move(world, mover)
    assert reminders(world, mover) == [], "she moved in time: nothing is left about that turn"
    world.fake.assert_no_bad_requests()


async def test_a_reminder_still_waiting_when_its_turn_passes_is_never_sent() -> None:
    clock = ManualClock()
    bot = RecordingBot(clock)
    sender = Delivery(bot, ChatMemory(MemoryStore()), clock)  # type: ignore[arg-type]
    ann = "7"
    sender.queues.clear()
    for n in range(4):  # her private chat's burst is spent: the reminder waits for its pace
        sender.submit([Reply(str(GROUP), text(f"note {n}"), private=True, user_id=ann)])
    reminder = Reply(
        str(GROUP), text("15 seconds left"), private=True, user_id=ann, tag=TURN_REMINDER, version=5
    )
    sender.submit([reminder, Retract(str(GROUP), TURN_REMINDER, ann, private=True, version=6)])
    await run(clock, sender, 10.0)
    assert "15 seconds left" not in [words for _, _, _, words in bot.log], (
        "its turn passed before it went out"
    )


async def test_start_answers_with_who_is_playing(world: World) -> None:
    group, people = await open_lobby(world, "", ["Ann", "Bob", "Cid"])
    answer = await world.tap(group, world.newest(group, "New game"), people[0], "Start")
    assert answer is not None and answer.text == "The game starts: Ann, Bob, Cid."
    assert not answer.show_alert, "a toast: the table shows the game"


async def test_a_join_answer_comes_before_the_hand_the_start_deals(world: World) -> None:
    group, people = await open_lobby(world, "", ["Ann", "Bob"])
    cid = world.person("Cid")
    world.fake.chat(group).members[cid.id] = "member"
    lobby = world.newest(group, "New game")
    for _ in range(3):  # his private chat is busy: what comes next waits for its pace
        world.fake.user_sends(cid, cid, "/help")
    world.fake.press_button(group, lobby.message_id, cid, "Join")  # his join and Ann's Start, at once
    world.fake.press_button(group, lobby.message_id, people[0], "Start")
    await world.settle()
    said = [m.text for m in world.fake.bot_messages(cid.id)]
    assert said.index("You joined.") < next(i for i, words in enumerate(said) if "Your cards" in words)


async def test_a_finished_games_hand_loses_its_buttons_before_the_next_games_hand_is_posted() -> None:
    clock = ManualClock()
    bot = RecordingBot(clock)
    sender = Delivery(bot, ChatMemory(MemoryStore()), clock)  # type: ignore[arg-type]
    bob = "8"
    sender.submit([ShowHand(str(GROUP), bob, text("g1: your move"), "g1", new_message=True, version=3)])
    await settled(lambda: not sender.queues)
    for n in range(3):  # his chat's burst: what follows waits for the pace
        sender.submit([Reply(str(GROUP), text(f"note {n}"), private=True, user_id=bob)])
    sender.submit([ShowHand(str(GROUP), bob, text("g1: the end"), "g1", version=4)])
    sender.submit([ShowHand(str(GROUP), bob, text("g2: your cards"), "g2", new_message=True, version=9)])
    await run(clock, sender, 10.0)
    to_bob = [(method, words) for _, method, chat, words in bot.log if chat == int(bob)]
    assert ("edit", "g1: the end") in to_bob, "the last game's hand shows its end, not its buttons"
