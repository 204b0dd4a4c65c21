"""Screens never go backwards on Discord: two moves' effects delivered in the wrong order (interactions are
handled concurrently, the turn timer beside them) leave the table and the live hands at the newer move; "My
hand" at an equal version still brings the hand, and a new game is shown when the store counts from 1 again."""

from __future__ import annotations

from typing import Any

from bot.buttons import Move
from bot.effects import Effect, ShowHand, ShowTable
from bot.inputs import Press, User
from bot.payloads import Payload
from bot.render.text import line, message
from bot.session import Playing
from storage import ChatRef
from tests.discord.table import Table, labels_of, text_of
from tests.discord.test_game import open_three_player_game
from tests.fakes.discord_store import FakeUser


async def decided_move(table: Table) -> list[Effect]:
    """The seat to act plays its first legal move through the service; the effects are not delivered yet."""
    assert table.client is not None
    session = await table.session()
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    game, header = session.game, session.header
    assert game.to_act is not None
    seat = header.seats[game.to_act]
    action = game.legal_actions(game.to_act)[0]
    payload = Payload(table.channel, header.game_id, game.step, Move(action)).encode()
    effects = await table.client.flow.service.handle(Press("dc", User(seat.user_id, seat.name), payload))
    assert any(isinstance(e, ShowTable) for e in effects), f"{seat.name}'s move was refused: {effects}"
    return effects


async def live_hands(table: Table, players: list[FakeUser]) -> None:
    """Everyone opens their ephemeral hand, so later moves edit it in place."""
    for player in players:
        await table.press_label(player, await table.table_message(), "My hand")


def hand_texts(table: Table, players: list[FakeUser]) -> dict[str, str]:
    texts = {}
    for player in players:
        hand = table.hand_of(player)
        assert hand is not None
        texts[player.id] = text_of(hand)
    return texts


async def test_the_older_moves_table_and_hands_delivered_after_the_newers_are_dropped(table: Table) -> None:
    assert table.client is not None
    delivery = table.client.delivery
    players = await open_three_player_game(table)
    await live_hands(table, players)
    older = await decided_move(table)
    newer = await decided_move(table)
    assert any(isinstance(e, ShowHand) for e in newer)
    await delivery.deliver(newer)
    await table.settle()
    shown_table = await table.table_message()
    table_text, table_edits = text_of(shown_table), len(table.fake.messages[shown_table["id"]].history)
    hands = hand_texts(table, players)
    await delivery.deliver(older)  # the older move's effects reach the adapter last
    await table.settle()
    assert text_of(await table.table_message()) == table_text
    assert len(table.fake.messages[shown_table["id"]].history) == table_edits, (
        "not even edited back and forth"
    )
    assert hand_texts(table, players) == hands


async def test_my_hand_at_the_current_version_still_brings_the_hand(table: Table) -> None:
    assert table.client is not None
    delivery = table.client.delivery
    players = await open_three_player_game(table)
    await live_hands(table, players)
    await delivery.deliver(await decided_move(table))
    await table.settle()
    version = (await table.store.load(ChatRef("dc", table.channel))).version
    bob = players[1]
    assert delivery.shown.newest[(table.channel, bob.id)][0] == version
    before = table.hand_of(bob)
    assert before is not None
    await table.press_label(bob, await table.table_message(), "My hand")
    fresh = table.hand_of(bob)
    assert fresh is not None and fresh["id"] != before["id"] and "Your cards" in text_of(fresh)


async def test_a_new_game_is_shown_after_the_store_lost_the_old_ones(table: Table, fake_redis: Any) -> None:
    players = await open_three_player_game(table)
    for _ in range(3):
        await table.client.delivery.deliver(await decided_move(table))  # type: ignore[union-attr]
    await table.settle()
    old_table = await table.table_message()
    old_version = (await table.store.load(ChatRef("dc", table.channel))).version
    await fake_redis.flushall()  # Redis restarted without its data
    ann, bob = players[0], players[1]
    await table.slash(ann, "new")
    lobby = await table.table_message()
    assert lobby["id"] != old_table["id"] and "Join" in labels_of(lobby)
    assert (await table.store.load(ChatRef("dc", table.channel))).version > old_version, "versions only grow"
    await table.press_label(bob, lobby, "Join")
    await table.press_label(ann, await table.table_message(), "Start")
    assert labels_of(await table.table_message()) == ["My hand"]
    hand = table.hand_of(ann)
    assert hand is not None and "Your cards" in text_of(hand)


async def test_a_new_lobby_overtaken_by_its_next_change_is_still_posted_as_a_new_message(
    table: Table,
) -> None:
    assert table.client is not None
    delivery = table.client.delivery
    delivery.show_table(ShowTable(table.channel, message([line("Old game")]), "g0", True, version=5))
    await table.settle()
    delivery.show_table(ShowTable(table.channel, message([line("Lobby, Bob joined")]), "g1", version=7))
    delivery.show_table(ShowTable(table.channel, message([line("Lobby")]), "g1", True, version=6))
    await table.settle()
    old, new = table.fake.public_messages(table.channel)
    assert old["embeds"][0]["title"] == "Old game" and new["embeds"][0]["title"] == "Lobby, Bob joined"
