"""A hostile group member cannot slow a game down: floods of commands on the fake Telegram.

A group may get about 20 messages a minute. Informational replies (`/rules`, `/help`, `/stats`, refusals) are
worth less than the table: when a group's queue is behind they are merged or dropped, and the table edit
of the next move goes out as soon as it would in a quiet group. The game's result and the table edit that
shows the end go ahead of any reply still waiting.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.effects import Notice
from bot.runtime.ratelimit import command_limiter
from tests.fakes.telegram_api import CallRecord
from tests.fakes.telegram_model import FakeChat, FakeUser
from tests.telegram.world import World

SPEED = 20  # virtual seconds per real second: slow enough that the bot's own latency stays small
REFILL = 62.0  # virtual seconds after which a group's whole budget (20 in 61 s) is back
ONE_SEND = 61 / 17  # the group's steady pace: one send every ~3.6 s once its burst is spent
FLOOD = 60


@pytest.fixture
async def game(world_factory: Callable[..., World]) -> tuple[World, FakeChat, list[FakeUser], FakeUser]:
    """Ann and Bob playing in a group where Eve, who does not play, is a member; commands are limited
    per user as `durak-bot run` limits them."""
    world = world_factory(speed=SPEED)
    world.service.commands = command_limiter()
    await world.start()
    ann, bob, eve = world.person("Ann"), world.person("Bob"), world.person("Eve")
    group = world.fake.add_group("Club", [ann, bob, eve], owner=ann)
    await world.settle()
    await world.say(group, ann, "/newgame")
    lobby = world.newest(group, "New game")
    await world.tap(group, lobby, bob, "Join")
    await world.tap(group, lobby, ann, "Start")
    return world, group, [ann, bob], eve


def group_calls(world: World, group: FakeChat, method: str = "") -> list[CallRecord]:
    """The messages the group was sent or edited, in order."""
    return [
        record
        for record in world.fake.call_log
        if record.status == 200
        and record.method in ((method,) if method else ("sendMessage", "editMessageText"))
        and str(record.params.get("chat_id")) == str(group.id)
    ]


def table_updates(world: World, group: FakeChat) -> list[CallRecord]:
    """The table's edits, and its re-posts at the bottom once the chat's messages buried it."""
    return [
        record
        for record in group_calls(world, group)
        if record.method == "editMessageText" or "My hand" in str(record.params.get("reply_markup"))
    ]


async def move_and_time_the_table(world: World, group: FakeChat, players: list[FakeUser]) -> float:
    """A player taps a move; the virtual seconds from the press being answered to the table's update (an
    edit, or a new message at the bottom when the flood buried the table)."""
    mover = world.acting(players)
    hand = world.hand(mover)
    assert hand is not None
    data = next(b["callback_data"] for b in hand.buttons() if "callback_data" in b)
    edits_before = len(table_updates(world, group))
    query = world.fake.user_presses(mover, hand.message_id, mover, data)
    await world.fake.wait_for_answer(query)
    answered = next(
        r.at
        for r in world.fake.call_log
        if r.method == "answerCallbackQuery" and r.params.get("callback_query_id") == query
    )
    await world.fake.wait_until(
        lambda: len(table_updates(world, group)) > edits_before, 15, "the table update"
    )
    edit = table_updates(world, group)[edits_before]
    return edit.at - answered


async def flood(world: World, group: FakeChat, who: FakeUser, text: str, times: int = FLOOD) -> None:
    """``who`` sends ``text`` ``times`` times; returns once the bot handled them (its queues may be busy)."""
    for _ in range(times):
        world.fake.user_sends(group, who, text)
    await world.fake.wait_until(lambda: set(world.fake.all_updates) <= world.handled, 15, "the flood handled")


@pytest.mark.parametrize(
    "command", ["/rules", "/help", "/stats", "/join", "/settings", "/newgame", "/leave", "/cancel"]
)
async def test_a_flood_of_commands_does_not_delay_the_next_table_edit(
    game: tuple[World, FakeChat, list[FakeUser], FakeUser], command: str
) -> None:
    world, group, players, eve = game
    world.fake.clock.advance(REFILL)
    quiet = await move_and_time_the_table(world, group, players)
    await world.settle()
    world.fake.clock.advance(REFILL)
    posts_before = len(group_calls(world, group, "sendMessage"))
    await flood(world, group, eve, command)
    flooded = await move_and_time_the_table(world, group, players)
    assert flooded < quiet + ONE_SEND, f"{FLOOD} x {command} delayed the table by {flooded - quiet:.0f} s"
    await world.settle()
    replies = len(group_calls(world, group, "sendMessage")) - posts_before
    assert replies <= 5, (
        f"{FLOOD} x {command}: {replies} replies in the group, not merged, dropped or refused"
    )
    assert world.fake.max_group_messages_per_minute(group) <= 20


async def test_a_flood_from_several_members_still_leaves_the_table_its_send(
    game: tuple[World, FakeChat, list[FakeUser], FakeUser],
) -> None:
    world, group, players, eve = game
    world.service.commands = None  # many members, each within their own budget
    world.fake.clock.advance(REFILL)
    quiet = await move_and_time_the_table(world, group, players)
    await world.settle()
    world.fake.clock.advance(REFILL)
    for text in ("/rules", "/help", "/stats", "/settings", "/join"):
        await flood(world, group, eve, text, 12)
    flooded = await move_and_time_the_table(world, group, players)
    assert flooded < quiet + ONE_SEND


async def test_the_result_and_the_final_table_go_ahead_of_waiting_replies(
    game: tuple[World, FakeChat, list[FakeUser], FakeUser],
) -> None:
    world, group, (ann, bob), eve = game
    world.service.commands = None
    await world.say(group, ann, "/leave")  # the question goes to Ann's private chat
    question = world.newest(ann, "Surrender?")
    for text in ("/rules", "/help", "/stats", "/settings", "/join", "/cancel", "/newgame", "/leave"):
        world.fake.user_sends(group, eve, text)  # eight different replies: more than a burst
    queued_at: list[int] = []
    submit = world.bot.delivery.submit

    def note_the_result(effects, reply_thread=-1):  # type: ignore[no-untyped-def]
        if any(isinstance(e, Notice) for e in effects):
            queued_at.append(len(group_calls(world, group)))
        submit(effects, reply_thread)

    world.bot.delivery.submit = note_the_result  # type: ignore[method-assign]
    await world.tap(ann, question, ann, "Yes, surrender")  # Bob wins, the game is over
    assert queued_at, "the game's result was queued"
    after = group_calls(world, group)[queued_at[0] :]
    table_edit = next(i for i, r in enumerate(after) if r.method == "editMessageText")
    result = next(
        i for i, r in enumerate(after) if r.method == "sendMessage" and "Game over" in str(r.params["text"])
    )
    assert max(table_edit, result) <= 2, [str(r.params.get("text"))[:40] for r in after[:4]]
    assert table_edit < result, "the table shows the end, then the result is posted"
    assert any(r.method == "sendMessage" for r in after[result + 1 :]), "replies were still waiting"


async def test_a_flood_of_admin_commands_asks_telegram_who_is_admin_once_a_minute(
    game: tuple[World, FakeChat, list[FakeUser], FakeUser],
) -> None:
    world, group, (ann, _bob), _eve = game
    asked = world.fake.calls["getChatMember"]
    await flood(world, group, ann, "/settings")  # Ann owns the group: each /settings needs her admin status
    assert world.fake.calls["getChatMember"] - asked == 1
