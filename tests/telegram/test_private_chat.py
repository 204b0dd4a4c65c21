"""A player who never opened the private chat with the bot (Telegram answers 403) is told how, is marked in
the lobby, holds the start back, and does not lose their turn while their cards cannot reach them."""

from __future__ import annotations

import asyncio

from bot.session import Lobby, Playing
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.telegram.world import World

MUST_OPEN = "must open a private chat with me"


async def lobby_with_a_stranger(world: World) -> tuple[FakeChat, FakeUser, FakeUser]:
    """Ann opens a lobby; Cat, who never opened the bot's private chat, types /join in the group."""
    ann, cat = world.person("Ann"), world.person("Cat", started=False)
    group = world.fake.add_group("Club", [ann, cat], owner=ann)
    await world.say(group, ann, "/newgame")
    await world.say(group, cat, "/join")
    return group, ann, cat


async def test_join_typed_by_a_player_who_never_opened_the_bot_is_answered_with_the_deep_link(
    world: World,
) -> None:
    group, _ann, _cat = await lobby_with_a_stranger(world)
    ask = world.newest(group, "private chat")
    assert "Cat" in ask.text
    assert ask.buttons()[0]["url"].startswith("https://t.me/durak_test_bot?start=")


async def test_the_lobby_marks_the_seat_that_must_open_the_bot_and_start_waits_for_it(world: World) -> None:
    group, ann, cat = await lobby_with_a_stranger(world)
    lobby = world.newest(group, "New game")
    assert f"Cat · {MUST_OPEN}" in lobby.text and f"Ann · {MUST_OPEN}" not in lobby.text
    answer = await world.tap(group, lobby, ann, "Start")
    assert answer is not None and "Cat" in answer.text and answer.show_alert
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Lobby), "the game waits for Cat"
    ask = world.newest(group, "private chat")
    await world.tap(group, ask, cat, ask.buttons()[0]["text"])
    lobby = world.newest(group, "New game")
    assert MUST_OPEN not in lobby.text, "Cat opened the private chat: the seat can receive a hand"
    await world.tap(group, lobby, ann, "Start")
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing)
    assert world.hand(cat) is not None or "Your cards" in world.newest(cat).text


async def test_a_creator_who_never_opened_the_bot_is_marked_in_the_lobby(world: World) -> None:
    cat, ann = world.person("Cat", started=False), world.person("Ann")
    group = world.fake.add_group("Club", [ann, cat], owner=ann)
    await world.say(group, cat, "/newgame")
    ask = world.newest(group, "private chat")
    assert "Cat" in ask.text
    assert ask.buttons()[0]["url"].startswith("https://t.me/durak_test_bot?start=")
    assert f"Cat · {MUST_OPEN}" in world.newest(group, "New game").text
    await world.tap(group, world.newest(group, "New game"), ann, "Join")
    await world.tap(group, world.newest(group, "New game"), cat, "Start")
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Lobby), "the game waits for Cat"


async def test_a_creator_who_opened_the_bot_is_told_privately_where_the_hand_will_come(world: World) -> None:
    ann = world.person("Ann")
    group = world.fake.add_group("Club", [ann], owner=ann)
    await world.say(group, ann, "/newgame")
    line = world.newest(ann, "Your lobby")
    assert "Club" in line.text and not line.buttons()
    assert MUST_OPEN not in world.newest(group, "New game").text
    assert len(world.fake.bot_messages(group.id)) == 1, "the group sees the lobby only"


async def test_the_creator_may_remove_a_seat_that_cannot_receive_a_hand(world: World) -> None:
    group, ann, cat = await lobby_with_a_stranger(world)
    lobby = world.newest(group, "New game")
    answer = await world.tap(group, lobby, cat, "Remove Cat")
    assert answer is not None and answer.show_alert, "only the creator removes a seat"
    await world.tap(group, world.newest(group, "New game"), ann, "Remove Cat")
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Lobby)
    assert [seat.name for seat in session.header.seats] == ["Ann"]


async def game_opened_by_someone_who_then_blocks_the_bot(world: World) -> tuple[FakeChat, FakeUser, FakeUser]:
    """Cat opens a lobby (her private chat is open then), blocks the bot, and starts the game with Ann:
    Cat's cards cannot reach her."""
    cat, ann = world.person("Cat"), world.person("Ann")
    group = world.fake.add_group("Club", [ann, cat], owner=ann)
    await world.say(group, cat, "/newgame")
    await world.tap(group, world.newest(group, "New game"), ann, "Join")
    world.fake.user_blocks(cat)
    await world.tap(group, world.newest(group, "New game"), cat, "Start")
    return group, cat, ann


async def test_the_clock_of_a_player_whose_hand_cannot_be_delivered_waits_at_most_two_minutes(
    world: World,
) -> None:
    group, cat, ann = await game_opened_by_someone_who_then_blocks_the_bot(world)
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    if session.game.to_act == 1:  # Ann's turn first (Cat opened the lobby: seat 0): she moves, then Cat
        await world.press_first_move([ann])
        session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    assert session.header.seats[session.game.to_act or 0].user_id == str(cat.id)
    assert session.header.turn_deadline is not None
    assert session.header.turn_deadline - world.service_now() > 60 + 100, "paused while Cat cannot see"
    step = session.game.step

    async def moved() -> bool:
        now = await world.session(group)
        return now is not None and now.game is not None and now.game.step > step

    world.offset += 61
    await asyncio.sleep(0.2)
    assert not await moved(), "a turn's length passed, but Cat never saw a card"
    world.offset += 120  # the pause lasts two minutes at most
    deadline = asyncio.get_running_loop().time() + 5
    while not await moved():
        assert asyncio.get_running_loop().time() < deadline, "the turn never timed out"
        await asyncio.sleep(0.01)
    await world.settle()


async def test_opening_the_private_chat_restarts_the_paused_clock(world: World) -> None:
    group, cat, ann = await game_opened_by_someone_who_then_blocks_the_bot(world)
    session = await world.session(group)
    assert session is not None and session.game is not None
    if session.game.to_act == 1:
        await world.press_first_move([ann])
    ask = world.newest(group, "private chat")
    await world.tap(group, ask, cat, "Show my cards")
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing)
    assert session.header.turn_deadline is not None
    assert session.header.turn_deadline - world.service_now() <= 60, "Cat sees the cards: the clock runs"
    assert not any(seat.private_closed_at for seat in session.header.seats)


async def test_a_player_who_leaves_and_types_join_again_is_marked_again(world: World) -> None:
    group, _ann, cat = await lobby_with_a_stranger(world)
    await world.say(group, cat, "/leave")
    assert "Cat" not in world.newest(group, "New game").text
    await world.say(group, cat, "/join")
    assert f"Cat · {MUST_OPEN}" in world.newest(group, "New game").text


PROMPT = "until you open a private chat with me"


def prompts(world: World, group: FakeChat) -> list[str]:
    """The requests to open the private chat still in the group (not deleted)."""
    return [m.text for m in world.fake.bot_messages(group.id) if PROMPT in m.text]


async def test_the_open_a_private_chat_prompt_is_deleted_once_the_player_opens_it(world: World) -> None:
    group, ann, cat = await lobby_with_a_stranger(world)
    assert len(prompts(world, group)) == 1
    ask = world.newest(group, "private chat")
    await world.tap(group, ask, cat, ask.buttons()[0]["text"])  # opens the chat (and joins, done already)
    assert prompts(world, group) == [], "Cat opened the private chat: nothing asks her to any more"
    await world.tap(group, world.newest(group, "New game"), ann, "Start")
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing)
    assert prompts(world, group) == []
    world.fake.assert_no_bad_requests()


async def test_the_open_a_private_chat_prompt_goes_with_the_seat_it_was_about(world: World) -> None:
    group, ann, cat = await lobby_with_a_stranger(world)
    await world.tap(group, world.newest(group, "New game"), ann, "Remove Cat")
    assert prompts(world, group) == [], "Cat's seat is gone: the request to her with it"
    world.fake.assert_no_bad_requests()


async def test_the_show_my_cards_prompt_of_a_refused_hand_is_deleted_once_the_player_opens_the_chat(
    world: World,
) -> None:
    group, cat, ann = await game_opened_by_someone_who_then_blocks_the_bot(world)
    session = await world.session(group)
    assert session is not None and session.game is not None
    if session.game.to_act == 1:
        await world.press_first_move([ann])
    assert len(prompts(world, group)) == 1, "the adapter asks Cat to open the chat for her cards"
    await world.tap(group, world.newest(group, "private chat"), cat, "Show my cards")
    assert prompts(world, group) == [], "her cards reach her now: the request is gone"
    assert world.hand(cat) is not None
    world.fake.assert_no_bad_requests()
