"""The table as a Discord Activity, on Discord's side: "Open table" launches it (interaction callback type
12, LAUNCH_ACTIVITY), its Entry Point command is synced with ``/durak``, and while a player has the Activity
open their ephemeral hand and the channel's mid-bout table edits pause, resuming when they close it."""

from __future__ import annotations

import pytest

from bot.buttons import Move
from bot.inputs import Press, User
from bot.payloads import Payload
from bot.platforms import DISCORD
from bot.session import Playing
from bot.timers import resume_on_close
from storage import ChatRef
from storage.presence import mark_closed, mark_open
from storage.store import RedisGameStore
from tests.discord.table import Table, buttons_of, labels_of, text_of
from tests.discord.test_game import choose, open_three_player_game
from tests.discord.test_hands import player_to_act
from tests.fakes.discord_gateway import FakeDiscord
from tests.fakes.discord_store import FakeUser

LAUNCH_ACTIVITY = 12


@pytest.fixture
async def activity(discord_api: FakeDiscord, store: RedisGameStore) -> Table:
    """A guild with one channel, the bot connected with the Activity on (DISCORD_ACTIVITY=on), ``/durak``
    and the Entry Point command synced once."""
    table = Table(discord_api, store)
    table.app_platforms = frozenset({DISCORD})
    await table.start(activity=True)
    return table


def open_table_button(message: dict[str, object]) -> dict[str, object]:
    return next(b for b in buttons_of(message) if b.get("label") == "Open table")


async def test_open_table_on_the_lobby_answers_with_launch_activity(activity: Table) -> None:
    ann = activity.fake.add_user("Ann")
    await activity.slash(ann, "new", words="")
    lobby = await activity.table_message()
    button = open_table_button(lobby)
    assert str(button["custom_id"]).startswith("a:")
    interaction = await activity.press(ann, lobby, str(button["custom_id"]))
    assert interaction.callback == {"type": LAUNCH_ACTIVITY}
    assert await activity.table_message() == lobby  # nothing else was sent or edited


async def test_open_table_under_the_game_and_the_hand_launch_the_activity(activity: Table) -> None:
    players = await open_three_player_game(activity)
    board = await activity.table_message()
    assert (await activity.press(players[1], board, str(open_table_button(board)["custom_id"]))).callback == {
        "type": LAUNCH_ACTIVITY
    }
    mover = await player_to_act(activity, players)
    await activity.press_label(mover, board, "My hand")
    hand = activity.hand_of(mover)
    assert hand is not None and "Open table" in labels_of(hand)
    assert (await activity.press(mover, hand, str(open_table_button(hand)["custom_id"]))).callback == {
        "type": LAUNCH_ACTIVITY
    }


async def test_the_entry_point_command_is_synced_with_the_slash_commands(activity: Table) -> None:
    _, commands = activity.fake.command_syncs[-1]
    entry = [c for c in commands if c["type"] == 4]
    assert [(c["name"], c["handler"], c["contexts"]) for c in entry] == [("launch", 2, [0, 1, 2])]
    assert any(c["name"] == "durak" and c["type"] == 1 for c in commands)


async def test_without_the_activity_no_button_launches_it_and_no_entry_point_is_synced(table: Table) -> None:
    ann = table.fake.add_user("Ann")
    await table.slash(ann, "new", words="")
    assert "Open table" not in labels_of(await table.table_message())
    assert all(c["type"] == 1 for c in table.fake.command_syncs[-1][1])


async def test_a_failed_launch_tells_the_presser_to_play_with_the_buttons(activity: Table) -> None:
    ann = activity.fake.add_user("Ann")
    await activity.slash(ann, "new", words="")
    lobby = await activity.table_message()
    activity.fake.inject_error("POST", r"/interactions/\d+/[^/]+/callback", 400, 50035, "Invalid Form Body")
    await activity.press(ann, lobby, str(open_table_button(lobby)["custom_id"]))
    notes = [text_of(m) for m in activity.fake.ephemeral_for(ann)]
    assert any("cannot open as an Activity" in note for note in notes)


async def test_hands_and_mid_bout_table_edits_pause_while_the_activity_is_open_and_resume_on_close(
    activity: Table, fake_redis: object
) -> None:
    assert activity.client is not None
    service = activity.client.service
    # the table's service is built with `storage.presence.open_pages`, as `durak-bot run` builds it
    players = await open_three_player_game(activity)
    chat = ChatRef(DISCORD, activity.channel)
    for player in players:  # every player has the Activity open (its WebSocket marks the page)
        await activity.press_label(player, await activity.table_message(), "My hand")
    await mark_open(fake_redis, [(chat, p.id, f"socket-{p.name}") for p in players])
    hands_before = {p.id: text_of(activity.hand_of(p) or {}) for p in players}
    board_before = text_of(await activity.table_message())
    table_edits = len(activity.fake.requests_to("PATCH", rf"/channels/{activity.channel}/messages/"))
    hand_edits = len(activity.fake.requests_to("PATCH", r"/webhooks/"))
    moves = 0
    while moves < 3 and await play_from_the_activity(activity, players):
        moves += 1
    assert moves == 3
    assert len(activity.fake.requests_to("PATCH", r"/webhooks/")) == hand_edits  # no hand edited
    assert len(activity.fake.requests_to("PATCH", rf"/channels/{activity.channel}/messages/")) == table_edits
    assert text_of(await activity.table_message()) == board_before
    ann = players[0]
    await mark_closed(fake_redis, chat, ann.id, f"socket-{ann.name}")
    await resume_on_close(service, activity.client.deliver_due)(chat, ann.id, False)
    await activity.settle()
    assert text_of(await activity.table_message()) != board_before  # the table caught up
    assert text_of(activity.hand_of(ann) or {}) != hands_before[ann.id]  # and her hand, as it is now


async def play_from_the_activity(table: Table, players: list[FakeUser]) -> bool:
    """The seat to act plays the normal AI's move as the Activity's page would: a press of the service."""
    session = await table.session()
    assert session is not None and table.client is not None
    if not isinstance(session.header, Playing) or session.game is None:
        return False
    game, header = session.game, session.header
    seat = game.to_act
    assert seat is not None
    user = next(p for p in players if p.id == header.seats[seat].user_id)
    payload = Payload(table.channel, header.game_id, game.step, Move(choose(game, seat))).encode()
    effects = await table.client.service.handle(
        Press(DISCORD, User(user.id, user.name), payload, from_app=True)
    )
    await table.client.delivery.deliver(effects)
    await table.settle()
    return True


def test_discord_channels_offer_the_activity_only_with_all_its_settings() -> None:
    from bot.runtime.config import BotConfig
    from cli.main import app_platforms

    settings = {
        "discord_token": "t",
        "discord_activity": True,
        "discord_client_id": "1",
        "discord_client_secret": "s",
    }
    assert app_platforms(BotConfig(_env_file=None, **settings)) == {DISCORD}  # type: ignore[call-arg]
    for missing in ("discord_activity", "discord_client_id", "discord_client_secret", "discord_token"):
        without = {**settings, missing: None if missing != "discord_activity" else False}
        assert app_platforms(BotConfig(_env_file=None, **without)) == frozenset()  # type: ignore[call-arg]
