"""Whole games through the real PTB client and the fake Bot API: people tap buttons in their private chats."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.session import Finished
from tests.telegram.world import World


async def open_lobby(world: World, words: str, names: list[str]):  # type: ignore[no-untyped-def]
    """The first person opens a lobby in a group; the others join through the Join deep link."""
    people = [world.person(name) for name in names]
    group = world.fake.add_group("Durak club", people, owner=people[0])
    await world.settle()
    await world.say(group, people[0], f"/newgame@{world.fake.bot_username} {words}".strip())
    lobby = world.newest(group, "New game")
    for person in people[1:]:
        await world.tap(group, lobby, person, "Join")
        assert "You joined." in world.newest(person).text
    return group, people


async def play_whole_game(world: World, words: str, names: list[str]) -> None:
    group, people = await open_lobby(world, words, names)
    lobby = world.newest(group, "New game")
    assert all(name in lobby.text for name in names)
    answer = await world.tap(group, lobby, people[0], "Start")
    assert answer.text == f"The game starts: {', '.join(names)}."  # who is playing, whatever the lobby showed
    for person in people:
        assert world.hand(person) is not None or "Your cards" in world.newest(person).text
    moves = await world.play_to_end(group, people)
    assert moves > 10
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Finished)
    assert "Game over" in world.newest(group).text
    await world.say(group, people[1], "/stats")
    board = world.newest(group, "Standings")
    assert all(name in board.text for name in names)
    table_messages = [m for m in world.fake.bot_messages(group) if "Trump" in m.text]
    assert len(table_messages) == 1, "the table is one message edited in place"
    for person in people:
        hands = [m for m in world.fake.bot_messages(person) if "Your cards" in m.text]
        assert len(hands) == 1, "each hand is one private message edited in place"
    await world.check_rules(group, [session.header.game_id])


@pytest.mark.parametrize("webhook", [False, True], ids=["polling", "webhook"])
async def test_three_player_transfer_game_to_the_result_and_stats(
    world_factory: Callable[..., World], webhook: bool
) -> None:
    world = world_factory(webhook=webhook)
    await world.start()
    # the webhook run deals 24 cards to keep the suite quick; the transport is what differs
    await play_whole_game(world, "transfer deck=24" if webhook else "transfer", ["Ann", "Bob", "Cat"])
    if webhook:
        assert world.fake.calls["getUpdates"] == 0
        assert all(status == 200 for _, status in world.fake.webhook_deliveries if status)


@pytest.mark.parametrize("webhook", [False, True], ids=["polling", "webhook"])
async def test_two_player_classic_game_to_the_result_and_stats(
    world_factory: Callable[..., World], webhook: bool
) -> None:
    world = world_factory(webhook=webhook, seed=11)
    await world.start()
    await play_whole_game(world, "deck=24" if webhook else "", ["Dan", "Eve"])
