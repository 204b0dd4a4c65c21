"""The Discord adapter after a crash: a restarted bot edits the channel's table a dead process never edited,
and a tap on an ephemeral hand left behind brings that hand up to date in place (an ephemeral hand itself
cannot be re-rendered by a new process: its interaction token lived in the dead one)."""

from __future__ import annotations

import asyncio
import time

from bot import payloads
from bot.inputs import Press, User
from bot.outbox import TABLE_SHOWN
from bot.session import Playing
from storage import ChatRef
from tests.discord.table import Table, buttons_of, text_of
from tests.discord.test_game import open_three_player_game, play_one_move
from tests.discord.test_hands import player_to_act
from tests.fakes.discord_store import FakeUser


def drawn_step(custom_id: str) -> int:
    """The game step a button's payload (after the ``d:`` prefix) was drawn at; -1 for none of ours."""
    payload = payloads.parse(custom_id.removeprefix("d:"))
    return payload.step if payload is not None else -1


async def a_lost_move(table: Table, players: list[FakeUser]) -> tuple[FakeUser, int]:
    """The seat to act moves and the process that saved the move dies before showing it: the move is
    stored, its effects never reach Discord. The mover and the step their old buttons were drawn for."""
    session = await table.session()
    assert session is not None and session.game is not None
    game, header = session.game, session.header
    assert isinstance(header, Playing)
    mover = await player_to_act(table, players)
    seat = game.to_act
    assert seat is not None
    code = game.legal_actions(seat)[0].code
    assert table.client is not None
    press = Press("dc", User(mover.id, mover.name), f"{table.channel}|{header.game_id}|{game.step}|{code}")
    assert await table.client.service.handle(press)  # dropped: the process died with them
    return mover, game.step


async def test_a_restarted_bot_edits_the_table_a_dead_one_never_edited(table: Table) -> None:
    players = await open_three_player_game(table)
    await play_one_move(table, players, [])
    before = text_of(await table.table_message())
    await a_lost_move(table, players)
    await table.restart(run_timer_loop=True, timer_poll=0.02)
    deadline = time.monotonic() + 5
    while text_of(await table.table_message()) == before:
        assert time.monotonic() < deadline, "the table still shows the move before the crash"
        await asyncio.sleep(0.02)
    await table.settle()
    assert table.client is not None
    await table.client.delivery.marks.flush()
    record = await table.store.load(ChatRef("dc", table.channel))
    assert record.messages[TABLE_SHOWN] == str(record.version)


async def test_a_tap_on_an_ephemeral_hand_left_behind_brings_it_up_to_date(table: Table) -> None:
    players = await open_three_player_game(table)
    await play_one_move(table, players, [])
    mover = await player_to_act(table, players)
    await table.press_label(mover, await table.table_message(), "My hand")
    mover, old_step = await a_lost_move(table, players)
    hand = table.hand_of(mover)
    assert hand is not None
    old = next(b for b in buttons_of(hand) if drawn_step(b["custom_id"]) == old_step)
    interaction = await table.press(mover, hand, old["custom_id"])
    assert interaction.callback is not None and interaction.callback["type"] == 7  # edited in place
    session = await table.session()
    assert session is not None and session.game is not None
    steps = {drawn_step(b["custom_id"]) for b in buttons_of(table.fake.messages[hand["id"]].data)} - {-1}
    assert steps <= {session.game.step, 0}, "no button of the step before the crash is left"
