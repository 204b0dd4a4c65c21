"""A running game at a spectator's pace (docs/telegram.md §4): the acting player's hand goes at once; the
group's table is edited at most once every `Limits.table_every` seconds, the edits waiting meanwhile merged
into the newest; a waiting player's hand changed by others' moves waits as long for their turn and goes as
one edit with it. The end of the game, a lobby and first hands are never held back.

Driven without a server, on a clock that moves only when the test says (tests/telegram/test_queues.py).
"""

from __future__ import annotations

from adapters.telegram.delivery import Delivery
from adapters.telegram.memory import ChatMemory
from adapters.telegram.pacing import Limits
from bench.memory import MemoryStore
from bot.effects import Notice, ShowHand, ShowTable
from tests.telegram.test_queues import GROUP, ManualClock, RecordingBot, settled, text

EVERY = 8.0
ANN, BOB = "1", "2"


def spectator_delivery() -> tuple[Delivery, ManualClock, RecordingBot]:
    clock = ManualClock()
    bot = RecordingBot(clock)
    memory = ChatMemory(MemoryStore())
    for user in (ANN, BOB):
        memory.saw_user(user, user, "en")
    sender = Delivery(bot, memory, clock, Limits(table_every=EVERY))  # type: ignore[arg-type]
    return sender, clock, bot


def table(words: str, version: int, turn: str = "", in_play: bool = True) -> ShowTable:
    return ShowTable(str(GROUP), text(words), "g1", version=version, turn_user=turn, in_play=in_play)


def hand(user: str, words: str, version: int, in_play: bool = True) -> ShowHand:
    return ShowHand(str(GROUP), user, text(words), "g1", version=version, in_play=in_play)


def sent_to(bot: RecordingBot, chat: int) -> list[tuple[float, str]]:
    return [(when, words) for when, _, to, words in bot.log if to == chat]


async def test_a_running_games_table_is_edited_at_most_once_every_table_every_seconds() -> None:
    sender, clock, bot = spectator_delivery()
    sender.submit([table("move 1", 1)])
    await settled(lambda: len(sent_to(bot, GROUP)) == 1)
    sender.submit([table("move 2", 2)])
    clock.advance(1.5)
    sender.submit([table("move 3", 3)])
    clock.advance(EVERY - 2.0)
    await settled(lambda: True)
    assert sent_to(bot, GROUP) == [(0.0, "move 1")], "the second waits for the spacing"
    clock.advance(1.0)
    await settled(lambda: len(sent_to(bot, GROUP)) == 2)
    assert sent_to(bot, GROUP)[1] == (EVERY + 0.5, "move 3"), "one edit, the newest: move 2 merged into it"


async def test_the_end_of_a_game_goes_at_once_inside_the_tables_spacing() -> None:
    sender, clock, bot = spectator_delivery()
    sender.submit([table("move 1", 1)])
    await settled(lambda: len(sent_to(bot, GROUP)) == 1)
    sender.submit([table("move 2", 2)])
    clock.advance(1.0)
    sender.submit([table("the end", 3, in_play=False), Notice(str(GROUP), text("Game over"), final=True)])
    await settled(lambda: len(sent_to(bot, GROUP)) == 3)
    assert sent_to(bot, GROUP)[1:] == [(1.0, "the end"), (1.0, "Game over")]


async def test_a_lobby_is_never_held_back() -> None:
    sender, _clock, bot = spectator_delivery()
    for version in (1, 2, 3):
        sender.submit([table(f"joined {version}", version, in_play=False)])
        await settled(lambda sent=version: len(sent_to(bot, GROUP)) == sent)
    assert [when for when, _ in sent_to(bot, GROUP)] == [0.0, 0.0, 0.0]


async def test_the_acting_players_hand_goes_at_once() -> None:
    sender, _clock, bot = spectator_delivery()
    sender.submit([table("Bob to answer", 1, turn=BOB), hand(BOB, "cover or take", 1)])
    await settled(lambda: len(sent_to(bot, int(BOB))) == 1)
    assert sent_to(bot, int(BOB)) == [(0.0, "cover or take")]


async def test_a_waiting_hand_waits_for_its_players_turn_and_goes_as_one_edit_with_it() -> None:
    sender, clock, bot = spectator_delivery()
    sender.submit([table("Ann to attack", 1, turn=ANN), hand(ANN, "attack", 1), hand(BOB, "drew 2", 1)])
    await settled(lambda: len(sent_to(bot, int(ANN))) == 1)
    clock.advance(2.0)
    sender.submit([table("Bob to answer", 2, turn=BOB), hand(BOB, "drew 2, cover or take", 2)])
    await settled(lambda: len(sent_to(bot, int(BOB))) == 1)
    assert sent_to(bot, int(BOB)) == [(2.0, "drew 2, cover or take")], "one edit, at his turn"


async def test_a_waiting_hand_goes_after_table_every_when_no_turn_comes() -> None:
    sender, clock, bot = spectator_delivery()
    sender.submit([table("Ann to attack", 1, turn=ANN), hand(BOB, "drew 2", 1)])
    await settled(lambda: True)
    assert sent_to(bot, int(BOB)) == []
    clock.advance(EVERY)
    await settled(lambda: len(sent_to(bot, int(BOB))) == 1)
    assert sent_to(bot, int(BOB)) == [(EVERY, "drew 2")]


async def test_a_first_hand_is_never_held_back() -> None:
    sender, _clock, bot = spectator_delivery()
    first = ShowHand(str(GROUP), BOB, text("your cards"), "g1", new_message=True, version=1, in_play=True)
    sender.submit([table("Ann to attack", 1, turn=ANN), first])
    await settled(lambda: len(sent_to(bot, int(BOB))) == 1)
    assert sent_to(bot, int(BOB)) == [(0.0, "your cards")]


async def test_a_lobby_edit_never_waits_behind_the_tables_spectator_pace() -> None:
    """Sixty running games fill the token's budget: their acting hands go first, their tables (the
    spectators' view) wait. A lobby's edit, which the people about to play are looking at, goes with the
    acting hands, not after every one of them."""
    sender, clock, bot = spectator_delivery()
    groups = [GROUP - n for n in range(1, 61)]
    for group in groups:
        actor = str(1000 - group)
        sender.submit(
            [
                ShowTable(str(group), text("a move"), "g1", version=5, turn_user=actor, in_play=True),
                ShowHand(str(group), actor, text("your move"), "g1", version=5, in_play=True),
            ]
        )
    await settled(lambda: len(bot.log) >= 5)  # the token's burst went; the rest wait for it
    sender.submit([ShowTable(str(GROUP), text("New game: Ann, Bob, Cid, Dan"), "l1", version=3)])
    while sender.queues:
        clock.advance(0.05)
        await settled(lambda: True)
    order = [to for _, _, to, _ in bot.log]
    hands = [index for index, to in enumerate(order) if to > 0]
    assert order.index(GROUP) < hands[-1], "the lobby went among the acting hands, not after them all"
