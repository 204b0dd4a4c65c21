"""Private hands: ephemeral and edited by token, fresh after a restart or 15 minutes, or sent by DM."""

from __future__ import annotations

import re
import time

from bot.buttons import OpenHand
from bot.effects import Button, ShowHand
from bot.payloads import Payload
from bot.render.text import bold, line, message
from bot.session import Playing
from tests.discord.table import Table, buttons_of, custom_id_of, labels_of, text_of
from tests.discord.test_game import choose, open_three_player_game, play_one_move
from tests.fakes.discord_store import FakeUser


async def player_to_act(table: Table, players: list[FakeUser]) -> FakeUser:
    session = await table.session()
    assert session is not None and session.game is not None and isinstance(session.header, Playing)
    user_id = session.header.seats[session.game.to_act or 0].user_id
    return next(p for p in players if p.id == user_id)


async def test_a_button_pressed_after_a_restart_still_plays_the_move(table: Table) -> None:
    players = await open_three_player_game(table)
    await play_one_move(table, players, [])
    old_client = table.client
    await table.restart()
    assert table.client is not old_client and old_client is not None and old_client.is_closed()
    mover = await player_to_act(table, players)
    table_before = await table.table_message()
    text_before = text_of(table_before)  # the fake edits its message dicts in place
    await table.press_label(mover, table_before, "My hand")  # a button on a message the old process sent
    hand = table.hand_of(mover)
    assert hand is not None and "Your cards" in text_of(hand)
    assert await play_one_move(table, players, [])  # and a move from that fresh hand
    table_after = await table.table_message()
    assert table_after["id"] == table_before["id"] and text_of(table_after) != text_before
    assert len(table.fake.command_syncs) == 1  # the restart did not upload the commands again


async def test_the_hand_says_until_when_it_updates_and_my_hand_brings_a_fresh_one_after_expiry(
    table: Table,
) -> None:
    players = await open_three_player_game(table)
    ann = players[0]
    hand = table.hand_of(ann)
    assert hand is not None
    (stamp,) = re.findall(r"<t:(\d+):t>", text_of(hand))
    assert 14 * 60 < int(stamp) - time.time() <= 15 * 60
    await play_one_move(table, players, [])  # Ann opens, from her hand (a fresh token)
    hand = table.hand_of(ann)
    assert hand is not None
    table.fake.expire_tokens()  # fifteen minutes later: Discord no longer takes these tokens
    versions = len(table.fake.messages[hand["id"]].history)
    for _ in range(12):  # until Ann's hand changes and the adapter tries her expired token
        await play_one_move(table, players, [])
        if (401, 50027) in [(e[2], e[3]) for e in table.fake.errors]:
            break
    assert (401, 50027) in [(e[2], e[3]) for e in table.fake.errors]  # tried once, then forgotten
    assert len(table.fake.messages[hand["id"]].history) == versions
    await table.press_label(ann, await table.table_message(), "My hand")
    fresh = table.hand_of(ann)
    assert fresh is not None and fresh["id"] != hand["id"] and "Your cards" in text_of(fresh)


async def test_a_refused_dm_is_reported_in_the_channel_and_the_hand_stays_ephemeral(table: Table) -> None:
    shy = table.fake.add_user("Shy", refuses_dms=True)
    bob = table.fake.add_user("Bob")
    await table.slash(shy, "new")
    await table.press_label(bob, await table.table_message(), "Join")
    await table.press_label(shy, await table.table_message(), "Start")
    hand = table.hand_of(shy)
    assert hand is not None
    await table.press_label(shy, hand, "Send to my DMs")
    assert table.fake.dms_for(shy) == []
    notice = table.fake.public_messages(table.channel)[-1]
    assert f"<@{shy.id}>" in notice["content"] and "direct message" in notice["content"]
    assert (403, 50007) in [(e[2], e[3]) for e in table.fake.errors]
    still = table.hand_of(shy)
    assert still is not None and still["id"] == hand["id"] and "Your cards" in text_of(still)
    assert "Send to my DMs" in labels_of(still)


async def test_a_player_who_opts_in_gets_the_hand_by_dm_and_plays_from_there(table: Table) -> None:
    players = await open_three_player_game(table)
    ann = players[0]
    hand = table.hand_of(ann)
    assert hand is not None
    await table.press_label(ann, hand, "Send to my DMs")
    (dm,) = table.fake.dms_for(ann)
    assert "Your cards" in text_of(dm) and "Show in the channel" in labels_of(dm)
    assert "direct message" in text_of(table.fake.messages[hand["id"]].data)
    for _ in range(8):  # other moves edit the DM in place; Ann's own moves are pressed there
        mover = await player_to_act(table, players)
        if mover is ann:
            (dm,) = table.fake.dms_for(ann)
            session = await table.session()
            assert session is not None and session.game is not None
            step = f"|{session.game.step}.{session.game.history()}|"
            button = next(b for b in buttons_of(dm) if step in b["custom_id"])
            interaction = await table.press(ann, dm, button["custom_id"])
            assert interaction.callback is not None and interaction.callback["type"] == 7
        else:
            await play_one_move(table, players, [])
    (dm,) = table.fake.dms_for(ann)
    assert len(table.fake.messages[dm["id"]].history) > 2
    await table.press(ann, dm, custom_id_of(dm, "Show in the channel"))
    assert "My hand" in text_of(table.fake.dms_for(ann)[0])


async def test_a_card_chosen_from_a_select_menu_reaches_the_service_and_edits_that_hand(table: Table) -> None:
    """Hands with more moves than 20 buttons get select menus; a choice is a press of that move."""
    players = await open_three_player_game(table)
    ann = players[0]
    session = await table.session()
    assert session is not None and isinstance(session.header, Playing)
    moves = [
        Button(f"card {n}", Payload(table.channel, session.header.game_id, n, OpenHand()).encode())
        for n in range(30)
    ]
    crowded = message(
        [line(bold("Durak in durak")), line("many cards")], [moves[i : i + 4] for i in range(0, 30, 4)]
    )
    assert table.client is not None
    hand = ShowHand(table.channel, ann.id, crowded, session.header.game_id)
    assert await table.client.delivery.dm_hand(hand, {})
    (dm,) = table.fake.dms_for(ann)
    select, second = [c for row in dm["components"] for c in row["components"] if c["type"] == 3]
    assert len(select["options"]) + len(second["options"]) == 28 and select["custom_id"].startswith("ds:0:")
    interaction = table.fake.press(ann, dm, select["custom_id"], values=[moves[5].payload])
    assert (await table.fake.wait_for_callback(interaction))["type"] == 7
    await table.settle()
    assert "Your cards" in text_of(table.fake.dms_for(ann)[0])


async def move_by_the_book(table: Table, players: list[FakeUser]) -> bool:
    """The seat to act plays what the normal AI would, from its hand (brought up with "My hand" when it
    has no such button). False once the game is over."""
    session = await table.session()
    assert session is not None
    if not isinstance(session.header, Playing):
        return False
    game, header = session.game, session.header
    assert game is not None and game.to_act is not None
    user = next(p for p in players if p.id == header.seats[game.to_act].user_id)
    drawn = re.compile(rf"\|{game.step}(\.[0-9a-f]+)?\|{re.escape(choose(game, game.to_act).code)}$")
    hand = table.hand_of(user)
    if hand is None or not any(drawn.search(b["custom_id"]) for b in buttons_of(hand)):
        await table.press_label(user, await table.table_message(), "My hand")
        hand = table.hand_of(user)
        assert hand is not None
    button = next(b for b in buttons_of(hand) if drawn.search(b["custom_id"]))
    await table.press(user, hand, button["custom_id"])
    return True


async def test_a_finished_discord_hand_speaks_of_the_end(table: Table) -> None:
    players = await open_three_player_game(table)
    for _ in range(400):
        if not await move_by_the_book(table, players):
            break
    await table.settle()
    for player in players:
        hands = [m for m in table.fake.ephemeral_for(player) if "🏁" in text_of(m) or "⏱" in text_of(m)]
        last = text_of(hands[-1])
        assert "Updates here until" not in last, f"{player.name}'s hand of a finished game"
        assert "Your game is over: this hand will not change any more." in last
        assert "Send to my DMs" not in labels_of(hands[-1])
