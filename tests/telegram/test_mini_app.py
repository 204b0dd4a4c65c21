"""The Telegram Mini App from the chat's side: the buttons that open it, and the chat writes it saves.

With WEBAPP_URL and WEBAPP_NAME set, the group's table links to the app (`https://t.me/<bot>/<app>?startapp=
<ref>`) and the private hand opens it as a `web_app` button. While people play in the app (their moves go
through the service as the app's press endpoint sends them), their hands are not edited, the group's table
is edited only when a bout is decided while every player is on the app, and a player who closes the app
gets their hand (and the table) back as the game stands.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from adapters.telegram.miniapp import MiniApp
from bot.buttons import Move
from bot.context import ServiceConfig
from bot.i18n import translator
from bot.inputs import Press, User
from bot.payloads import Payload
from bot.render.table import render_table
from bot.session import Finished, Playing
from bot.timers import resume_on_close
from storage import ChatRef
from tests.fakes.telegram_model import FakeChat, FakeUser, StoredMessage
from tests.telegram.world import CARD_RE, World

APP = MiniApp("https://durak.example.net/app", "table")


class Pages:
    """Who has the app open, as the web adapter reports it (`GameService.on_app`)."""

    def __init__(self) -> None:
        self.open: dict[ChatRef, set[str]] = {}

    async def __call__(self, chat: ChatRef) -> Collection[str]:
        return self.open.get(chat, set())

    def opened_by(self, group: FakeChat, *people: FakeUser) -> None:
        """Exactly ``people`` have the app open on the group's game now (opening it, or closing it)."""
        self.open[chat_of(group)] = {str(person.id) for person in people}


def app_world(world_factory: Callable[..., World], pages: Pages | None = None) -> World:
    world = world_factory(service_config=ServiceConfig(ai_delay=0, app_platforms=frozenset({"tg"})), seed=3)
    world.bot.delivery.mini_app = APP
    world.service.on_app = pages
    return world


async def joined_lobby(
    world: World, names: list[str], words: str = "deck=24"
) -> tuple[FakeChat, list[FakeUser], StoredMessage]:
    """A group where the first of ``names`` opened a lobby and the others joined it."""
    people = [world.person(name) for name in names]
    group = world.fake.add_group("Durak club", people, owner=people[0])
    await world.settle()
    await world.say(group, people[0], f"/newgame {words}")
    lobby = world.newest(group, "New game")
    for person in people[1:]:
        await world.tap(group, lobby, person, "Join")
    return group, people, lobby


async def started_game(
    world: World, names: list[str], words: str = "deck=24"
) -> tuple[FakeChat, list[FakeUser]]:
    group, people, lobby = await joined_lobby(world, names, words)
    await world.tap(group, lobby, people[0], "Start")
    return group, people


async def ann_and_bob_playing(
    world_factory: Callable[..., World], pages: Pages | None = None
) -> tuple[World, FakeChat, list[FakeUser]]:
    """A bot with the app set up, and Ann and Bob's game (24 cards) started in a group."""
    world = app_world(world_factory, pages)
    await world.start()
    group, people = await started_game(world, ["Ann", "Bob"])
    return world, group, people


def chat_of(group: FakeChat) -> ChatRef:
    return ChatRef("tg", str(group.id))


async def app_move(world: World, group: FakeChat, people: list[FakeUser]) -> bool:
    """The player to act makes a move in the app (through the service, as the app's press endpoint does)
    and the effects go to the Telegram adapter; False once the game is over."""
    session = await world.session(group)
    assert session is not None
    if isinstance(session.header, Finished):
        return False
    assert isinstance(session.header, Playing) and session.game is not None
    game, seat = session.game, session.game.to_act
    assert seat is not None
    action = world.rng.choice(game.legal_actions(seat))
    person = people[seat]
    payload = Payload(str(group.id), session.header.game_id, game.step, Move(action)).encode()
    effects = await world.service.handle(Press("tg", User(str(person.id), person.first_name), payload))
    world.bot.delivery.submit(effects)
    await world.settle()
    return True


def writes(world: World, chat: FakeChat | FakeUser) -> int:
    """Messages sent or edited in the chat so far."""
    return len(world.fake.send_times.get(chat.id, []))


def cards_in_hand_message(world: World, person: FakeUser) -> set[str]:
    hand = world.newest(person, "Your cards")
    line = next(line for line in hand.text.splitlines() if line.startswith("Your cards"))
    return {"".join(match) for match in CARD_RE.findall(line)}


async def table_as_stored(world: World, group: FakeChat) -> str:
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    table = render_table(session.header, session.game.view(None), str(group.id), translator("en"), True)
    return table.plain_text


def table_message(world: World, group: FakeChat):  # type: ignore[no-untyped-def]
    return world.newest(group, "Trump")


async def test_the_group_table_links_to_the_app_by_its_short_name_with_the_games_ref(
    world_factory: Callable[..., World],
) -> None:
    world, group, _people = await ann_and_bob_playing(world_factory)
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing)
    buttons = {button["text"]: button for button in table_message(world, group).buttons()}
    ref = f"{group.id}_{session.header.game_id}"
    assert buttons["Open table"] == {
        "text": "Open table",
        "url": f"https://t.me/{world.fake.bot_username}/table?startapp={ref}",
    }
    assert "My hand" in buttons
    world.fake.assert_no_bad_requests()


async def test_the_lobby_links_to_the_app_so_players_can_open_it_before_the_deal(
    world_factory: Callable[..., World],
) -> None:
    world = app_world(world_factory)
    await world.start()
    ann = world.person("Ann")
    group = world.fake.add_group("Durak club", [ann], owner=ann)
    await world.settle()
    await world.say(group, ann, "/newgame")
    session = await world.session(group)
    assert session is not None and not isinstance(session.header, Playing | Finished)
    lobby_id = session.header.lobby_id
    link = f"https://t.me/{world.fake.bot_username}/table?startapp={group.id}_{lobby_id}"
    assert {"text": "Open table", "url": link} in world.newest(group, "New game").buttons()
    world.fake.assert_no_bad_requests()


async def test_the_private_hand_opens_the_app_as_a_web_app_button_with_the_games_ref(
    world_factory: Callable[..., World],
) -> None:
    world, group, people = await ann_and_bob_playing(world_factory)
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing)
    for person in people:
        hand = world.newest(person, "Your cards")
        opener = [button for button in hand.buttons() if button["text"] == "Open table"]
        assert opener == [
            {"text": "Open table", "web_app": {"url": f"{APP.url}?ref={group.id}_{session.header.game_id}"}}
        ]
    world.fake.assert_no_bad_requests()


async def test_without_the_app_settings_no_button_opens_it(world_factory: Callable[..., World]) -> None:
    world = world_factory(seed=3)
    await world.start()
    group, people = await started_game(world, ["Ann", "Bob"])
    texts = [button["text"] for message in world.fake.bot_messages(group) for button in message.buttons()]
    texts += [
        button["text"]
        for person in people
        for message in world.fake.bot_messages(person.id)
        for button in message.buttons()
    ]
    assert "Open table" not in texts


async def test_hands_pause_while_everyone_plays_in_the_app_and_resume_for_the_one_who_closes_it(
    world_factory: Callable[..., World],
) -> None:
    pages = Pages()
    world, group, people = await ann_and_bob_playing(world_factory, pages)
    ann, bob = people
    chat = chat_of(group)
    pages.opened_by(group, ann, bob)
    before = {person.id: writes(world, person) for person in people}
    for _ in range(8):
        assert await app_move(world, group, people)
    assert {person.id: writes(world, person) for person in people} == before, "no hand was edited"

    pages.opened_by(group, bob)  # Ann closes the app: the web adapter tells its listener
    await resume_on_close(world.service, world.bot.deliver_due)(chat, str(ann.id), False)
    await world.settle()
    session = await world.session(group)
    assert session is not None and session.game is not None
    assert cards_in_hand_message(world, ann) == {card.symbol for card in session.game.hand(0)}
    assert writes(world, bob) == before[bob.id], "Bob still plays in the app"
    assert table_message(world, group).text == await table_as_stored(world, group)

    assert await app_move(world, group, people)
    session = await world.session(group)
    assert session is not None and session.game is not None
    held = {card.symbol for card in session.game.hand(0)}
    shown = cards_in_hand_message(world, ann)  # after her own press, left with the card she played
    assert held <= shown and len(shown - held) <= 1, "Ann's hand follows the game again"
    world.fake.assert_no_bad_requests()


async def test_a_game_started_with_everyone_on_the_app_sends_a_hand_only_to_whoever_closes_it(
    world_factory: Callable[..., World],
) -> None:
    pages = Pages()
    world = app_world(world_factory, pages)
    await world.start()
    group, people, lobby = await joined_lobby(world, ["Ann", "Bob"])
    pages.opened_by(group, *people)  # both opened the app in the lobby
    await world.tap(group, lobby, people[0], "Start")
    assert all(world.hand(person) is None for person in people), "no hand message: the app is the hand"
    assert "Trump" in table_message(world, group).text, "the group's table shows the game"

    pages.opened_by(group, people[1])
    await resume_on_close(world.service, world.bot.deliver_due)(chat_of(group), str(people[0].id), False)
    await world.settle()
    session = await world.session(group)
    assert session is not None and session.game is not None
    assert cards_in_hand_message(world, people[0]) == {card.symbol for card in session.game.hand(0)}
    assert world.hand(people[1]) is None
    world.fake.assert_no_bad_requests()


async def test_closing_the_app_with_nothing_held_back_sends_nothing(
    world_factory: Callable[..., World],
) -> None:
    pages = Pages()
    world, group, people = await ann_and_bob_playing(world_factory, pages)
    await world.bot.delivery.marks.flush()  # what was delivered is recorded with the chat
    before = world.fake.calls.copy()
    assert await world.service.app_closed(chat_of(group), str(people[0].id)) == []
    assert world.fake.calls == before


async def test_a_page_still_open_elsewhere_resumes_nothing(world_factory: Callable[..., World]) -> None:
    pages = Pages()
    world, group, people = await ann_and_bob_playing(world_factory, pages)
    pages.opened_by(group, *people)
    for _ in range(4):
        assert await app_move(world, group, people)
    assert await world.service.app_closed(chat_of(group), str(people[0].id)) == []


async def test_the_group_table_is_edited_only_when_a_player_goes_out_while_everyone_is_on_the_app(
    world_factory: Callable[..., World],
) -> None:
    pages = Pages()
    world, group, people = await ann_and_bob_playing(world_factory, pages)
    pages.opened_by(group, *people)
    edited_meanwhile, table_writes, out = 0, 0, 0
    for _ in range(200):
        before = writes(world, group)
        if not await app_move(world, group, people):
            break
        session = await world.session(group)
        assert session is not None
        wrote = writes(world, group) - before
        table_writes += wrote
        now_out = len(session.game.out) if session.game is not None else -1  # -1: the game is over
        edited_meanwhile += wrote if now_out == out else 0
        out = now_out
    assert edited_meanwhile == 0, "not at a card, not at a bout: the standing did not change"
    assert 0 < table_writes <= 3  # two players: only the end, its table edits and the result
    world.fake.assert_no_bad_requests()


async def test_one_player_in_the_chat_keeps_the_table_live_and_their_own_hand(
    world_factory: Callable[..., World],
) -> None:
    pages = Pages()
    world, group, people = await ann_and_bob_playing(world_factory, pages)
    ann, bob = people
    pages.opened_by(group, ann)
    before_ann, before_group = writes(world, ann), writes(world, group)
    for _ in range(6):
        assert await app_move(world, group, people)
    assert writes(world, ann) == before_ann
    assert writes(world, group) - before_group == 6, "Bob reads the table in the group: every move shows"
    session = await world.session(group)
    assert session is not None and session.game is not None
    assert cards_in_hand_message(world, bob) == {card.symbol for card in session.game.hand(1)}


async def test_the_table_still_shows_the_result_when_everyone_played_in_the_app(
    world_factory: Callable[..., World],
) -> None:
    pages = Pages()
    world, group, people = await ann_and_bob_playing(world_factory, pages)
    pages.opened_by(group, *people)
    hands_before = [writes(world, person) for person in people]
    for _ in range(400):
        if not await app_move(world, group, people):
            break
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Finished)
    assert "Game over" in world.newest(group).text
    final = table_message(world, group)
    assert "▶" not in final.text and not final.buttons(), "the table shows the end, not a bout in progress"
    assert [writes(world, person) for person in people] == hands_before, "the app showed them the end"
    world.fake.assert_no_bad_requests()
    await world.check_rules(group, [session.header.game_id])


def test_the_open_table_link_of_a_supergroup_fits_telegrams_startapp() -> None:
    link = APP.group_link("durak_test_bot", "-1001234567890_k3x9ab12")
    assert re.fullmatch(r"https://t\.me/durak_test_bot/table\?startapp=[A-Za-z0-9_-]{1,64}", link)
    assert APP.page_url("-100_k3") == "https://durak.example.net/app?ref=-100_k3"
    assert (
        MiniApp("https://x.example/app?v=2", "table").page_url("5_a") == "https://x.example/app?v=2&ref=5_a"
    )
