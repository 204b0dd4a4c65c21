"""Your turn on Telegram: a hand whose turn comes after a wait is sent as a new message (Telegram notifies
only new messages) and the old one deleted; a quick answer edits the hand in place, silently."""

from __future__ import annotations

from adapters.telegram.items import items_for, merged
from bot.effects import ShowHand
from bot.render.text import line, message
from tests.fakes.telegram_model import FakeUser, StoredMessage
from tests.telegram.test_games import open_lobby
from tests.telegram.world import World


def hands_of(world: World, person: FakeUser, deleted: bool = False) -> list[StoredMessage]:
    """The person's hand messages in their private chat (with the deleted ones when asked)."""
    found = world.fake.messages(person.id, include_deleted=deleted)
    return [m for m in found if m.from_bot and "Your cards" in m.text]


async def tap_first_move(world: World, people: list[FakeUser]) -> tuple[FakeUser, FakeUser]:
    """The person to act taps their first move button; returns (them, who acts now)."""
    mover = world.acting(people)
    await world.press_first_move(people)
    return mover, world.acting(people)


async def test_a_turn_after_a_wait_sends_the_hand_anew_and_deletes_the_old_one(world: World) -> None:
    group, people = await open_lobby(world, "", ["Ann", "Bob"])
    await world.tap(group, world.newest(group, "New game"), people[0], "Start")
    waiting = next(p for p in people if p != world.acting(people))
    (old,) = hands_of(world, waiting)
    world.offset += 30  # the attacker thinks for half a minute
    _mover, after = await tap_first_move(world, people)
    assert after == waiting
    (new,) = hands_of(world, waiting)
    assert new.message_id != old.message_id, "a new message, so Telegram notifies"
    assert [m.message_id for m in hands_of(world, waiting, deleted=True) if m.deleted] == [old.message_id]
    assert world.fake.calls["deleteMessage"] == 1
    await world.check_rules(group, [], running=True)


async def test_a_quick_answer_edits_the_hand_in_place(world: World) -> None:
    group, people = await open_lobby(world, "", ["Ann", "Bob"])
    await world.tap(group, world.newest(group, "New game"), people[0], "Start")
    world.offset += 30
    await tap_first_move(world, people)  # the defender is announced
    ids = {person.id: [m.message_id for m in hands_of(world, person)] for person in people}
    deletes = world.fake.calls["deleteMessage"]
    for _ in range(4):  # from now on both answer at once
        await tap_first_move(world, people)
    assert {person.id: [m.message_id for m in hands_of(world, person)] for person in people} == ids
    assert world.fake.calls["deleteMessage"] == deletes, "no new message for a quick answer"


async def test_a_hand_that_cannot_be_deleted_still_leaves_the_new_one(world: World) -> None:
    group, people = await open_lobby(world, "", ["Ann", "Bob"])
    await world.tap(group, world.newest(group, "New game"), people[0], "Start")
    waiting = next(p for p in people if p != world.acting(people))
    (old,) = hands_of(world, waiting)
    old.deleted = True  # the player cleared the chat: Telegram answers "message to delete not found"
    world.offset += 30
    await tap_first_move(world, people)
    hands = hands_of(world, waiting)
    assert len(hands) == 1 and hands[0].message_id != old.message_id and world.hand(waiting) is not None


def test_an_announced_hand_merged_with_its_next_update_still_announces() -> None:
    """The announced hand waited in the queue and the player's next hand came: the newer content is sent,
    still as a new message (otherwise the turn would be edited in silently)."""
    announced, newer = items_for(
        [
            ShowHand("-100", "42", message([line("your move")]), "g1", announce=True),
            ShowHand("-100", "42", message([line("your move, 30 seconds left")]), "g1"),
        ]
    )
    both = merged(announced, newer)
    assert both is not None and both.announce and both.message == newer.message
