"""Screens never go backwards on Telegram: two moves' effects queued in the wrong order (a turn timer's beside a
press) leave the group's table and each hand at the newer move; an equal version ("My hand") is still sent, and
a new game is shown even when the store counts its versions from 1 again."""

from __future__ import annotations

from typing import Any

from bot.buttons import Move
from bot.effects import Effect, ShowHand, ShowTable
from bot.inputs import Press, User
from bot.payloads import Payload
from bot.render.text import line, message
from bot.session import Playing
from storage import ChatRef
from tests.fakes.telegram_model import FakeChat, FakeUser, StoredMessage
from tests.telegram.test_behaviour import two_player_game
from tests.telegram.world import World


async def decided_move(world: World, group: FakeChat, people: list[FakeUser]) -> list[Effect]:
    """The seat to act plays its first legal move through the service; the effects are not delivered yet."""
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    game, header = session.game, session.header
    assert game.to_act is not None
    seat = header.seats[game.to_act]
    action = game.legal_actions(game.to_act)[0]
    payload = Payload(str(group.id), header.game_id, game.step, Move(action)).encode()
    effects = await world.service.handle(Press("tg", User(seat.user_id, seat.name), payload))
    assert any(isinstance(e, ShowTable) for e in effects), f"{seat.name}'s move was refused: {effects}"
    return effects


def table_message(world: World, group: FakeChat) -> StoredMessage:
    stored = world.bot.memory.message_id(str(group.id), "table")
    assert stored is not None
    return next(m for m in world.fake.bot_messages(group) if m.message_id == stored[1])


def hand_message(world: World, group: FakeChat, user_id: str) -> StoredMessage:
    stored = world.bot.memory.message_id(str(group.id), f"hand:{user_id}")
    assert stored is not None
    return next(m for m in world.fake.bot_messages(int(user_id)) if m.message_id == stored[1])


def shown_texts(effects: list[Effect]) -> dict[str, str]:
    """ "table" and each user id whose hand the effects show -> the text shown."""
    return {
        e.user_id if isinstance(e, ShowHand) else "table": e.message.plain_text
        for e in effects
        if isinstance(e, ShowTable | ShowHand)
    }


def versions(effects: list[Effect]) -> set[int]:
    return {e.version for e in effects if isinstance(e, ShowTable | ShowHand)}


async def test_the_older_moves_table_and_hands_queued_after_the_newers_are_dropped(world: World) -> None:
    group, ann, bob = await two_player_game(world)
    older = await decided_move(world, group, [ann, bob])
    newer = await decided_move(world, group, [ann, bob])
    world.bot.delivery.submit(newer)
    world.bot.delivery.submit(older)  # the press's effects reach the adapter after the timer's
    await world.settle()
    wanted = shown_texts(newer)
    assert wanted.keys() >= {"table"} and len(wanted) > 1, "the newer move changed the table and a hand"
    assert table_message(world, group).text == wanted.pop("table")
    for user_id, text in wanted.items():
        assert hand_message(world, group, user_id).text == text
    assert max(versions(older)) < min(versions(newer))


async def test_my_hand_resends_the_current_hand_with_an_equal_version(world: World) -> None:
    group, ann, bob = await two_player_game(world)
    effects = await decided_move(world, group, [ann, bob])
    world.bot.delivery.submit(effects)
    await world.settle()
    # the one who answers the move (both hands were drawn: the mover's shows the move, docs/telegram.md §3)
    assert {e.user_id for e in effects if isinstance(e, ShowHand)} == {str(ann.id), str(bob.id)}
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    to_act = session.header.seats[session.game.to_act or 0].user_id
    answerer = next(p for p in (ann, bob) if str(p.id) == to_act)
    version = (await world.store.load(ChatRef("tg", str(group.id)))).version
    assert world.bot.delivery.shown.newest[(str(group.id), str(answerer.id))][0] == version
    before = world.fake.bot_messages(answerer)
    world.fake.press_button(group, table_message(world, group).message_id, answerer, "My hand")  # a deep link
    await world.settle()
    sent = world.fake.bot_messages(answerer)
    assert "Your cards" in sent[-1].text and sent[-1].message_id > before[-1].message_id, "sent again"
    assert len(sent) == len(before), "as a new message, the old hand deleted"


async def test_a_new_game_is_shown_after_the_store_lost_the_old_ones(world: World, fake_redis: Any) -> None:
    group, ann, bob = await two_player_game(world)
    for _ in range(3):
        world.bot.delivery.submit(await decided_move(world, group, [ann, bob]))
    await world.settle()
    old_table = table_message(world, group)
    old_version = (await world.store.load(ChatRef("tg", str(group.id)))).version
    await fake_redis.flushall()  # Redis restarted without its data
    await world.say(group, ann, "/newgame")
    lobby = world.newest(group, "New game")
    assert lobby.message_id != old_table.message_id
    assert (await world.store.load(ChatRef("tg", str(group.id)))).version > old_version, "versions only grow"
    await world.tap(group, lobby, bob, "Join")
    await world.tap(group, lobby, ann, "Start")
    table = table_message(world, group)
    assert table.message_id == lobby.message_id and "My hand" in str(table.reply_markup)
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing)
    for person in (ann, bob):  # each hand sent as the new game's
        assert world.bot.memory.message_id(str(group.id), f"hand:{person.id}") is not None
        stored = world.bot.memory.message_id(str(group.id), f"hand:{person.id}")
        assert stored is not None and stored[0] == session.header.game_id
        assert "Your cards" in hand_message(world, group, str(person.id)).text


async def test_a_new_lobby_overtaken_by_its_next_change_is_still_posted_as_a_new_message(
    world: World,
) -> None:
    group, ann, bob = await two_player_game(world)
    old_table = table_message(world, group)
    chat = str(group.id)
    now = (await world.store.load(ChatRef("tg", chat))).version
    world.bot.delivery.submit([ShowTable(chat, message([line("Lobby, Bob joined")]), "g9", version=now + 2)])
    world.bot.delivery.submit([ShowTable(chat, message([line("Lobby")]), "g9", True, version=now + 1)])
    await world.settle()
    posted = table_message(world, group)
    assert posted.message_id != old_table.message_id and posted.text == "Lobby, Bob joined"
    assert "Lobby" not in old_table.text
