"""Several processes on one token: Telegram's limits, the screens' order and the ranking under overload hold
for all of them together (adapters/telegram/shared_pacing.py).

Each "process" is a `Delivery` with its own PTB `Bot`, chat memory and pacer, all on one event loop, sharing
one Redis (fakeredis, and once the real server) and the fake Bot API's virtual clock.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adapters.telegram.delivery import Delivery
from adapters.telegram.pacing import Clock
from bot.effects import Reply, ShowHand, ShowTable
from bot.render.text import line, message
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_model import Clock as FakeClock
from tests.fakes.telegram_model import FakeChat, FakeUser


def text(words: str) -> Any:
    return message([line(words)])


class StalledClock:
    """A process whose event loop is held up once: its next wait lasts ``stall`` seconds longer."""

    def __init__(self, clock: Clock, stall: float) -> None:
        self.clock, self.stall = clock, stall

    def now(self) -> float:
        return self.clock.now()

    async def sleep(self, seconds: float) -> None:
        extra, self.stall = self.stall, 0.0
        await self.clock.sleep(seconds + extra)


def people(fake: FakeTelegram, n: int, first: int) -> list[FakeUser]:
    users = [fake.add_user(f"P{first + i}", user_id=first + i) for i in range(n)]
    for user in users:
        fake.user_starts(user)
    return users


def sent_to(fake: FakeTelegram, chat: int) -> list[tuple[int, str]]:
    """(index in the call log, text) of each message sent or edited in ``chat``, in order."""
    return [
        (index, str(record.params.get("text")))
        for index, record in enumerate(fake.call_log)
        if record.status == 200
        and record.method in ("sendMessage", "editMessageText")
        and str(record.params.get("chat_id")) == str(chat)
    ]


async def idle(*deliveries: Delivery, timeout: float = 30.0) -> None:
    await asyncio.gather(*(delivery.wait_idle(timeout) for delivery in deliveries))


# ---- one budget per token --------------------------------------------------------------------------


async def presses_on_both(fake: FakeTelegram, a: Delivery, b: Delivery, group: FakeChat, moves: int) -> None:
    """A game's table changing once a virtual second, its presses landing on both processes in turn."""
    a.submit([ShowTable(str(group.id), text("table v0"), "g1", version=1)])
    await a.wait_idle()
    for version in range(2, moves + 2):
        (a if version % 2 else b).submit(
            [ShowTable(str(group.id), text(f"table v{version}"), "g1", version=version)]
        )
        await fake.clock.sleep(1.0)
    await idle(a, b)


async def test_two_processes_share_one_groups_twenty_a_minute(
    telegram_api: FakeTelegram, processes: Any, shared_redis: Any
) -> None:
    telegram_api.clock = FakeClock(speed=100)
    telegram_api.limits.group_per_window = None  # count what the bot sends, not what Telegram would accept
    a, b = await processes(shared_redis)
    group = telegram_api.add_group("Durak night")
    await presses_on_both(telegram_api, a, b, group, moves=90)
    assert telegram_api.max_messages_in_window(group, 61.0) <= 20, "one group's limit, for both processes"
    assert sent_to(telegram_api, group.id)[-1][1] == "table v91", "the newest table is shown in the end"


async def test_two_processes_stay_under_thirty_messages_a_second(
    telegram_api: FakeTelegram, processes: Any, fake_redis: Any
) -> None:
    telegram_api.clock = FakeClock(speed=2)
    telegram_api.limits.global_per_second = None  # count what the bot sends
    a, b = await processes(fake_redis)
    users = people(telegram_api, 80, 2001)
    for round_ in range(3):
        for index, user in enumerate(users):
            (a if index % 2 else b).submit([Reply(str(user.id), text(f"note {round_}"))])
    await idle(a, b)
    assert len(telegram_api.all_send_times) == 240, "nothing lost"
    assert max_in(telegram_api.all_send_times, 1.0) <= 30, "the token's limit, for both processes"


def max_in(times: list[float], window: float) -> int:
    ordered = sorted(times)
    return max((len([t for t in ordered if start <= t < start + window]) for start in ordered), default=0)


# ---- no screen goes backwards ------------------------------------------------------------------------


def screen(kind: str, chat: str, user: str, version: int) -> ShowTable | ShowHand:
    if kind == "table":
        return ShowTable(chat, text(f"table v{version}"), "g1", version=version)
    return ShowHand(chat, user, text(f"hand v{version}"), "g1", version=version)


@pytest.mark.parametrize("kind", ["table", "hand"])
async def test_a_screen_older_than_one_another_process_delivered_is_dropped(
    telegram_api: FakeTelegram, processes: Any, fake_redis: Any, kind: str
) -> None:
    telegram_api.clock = FakeClock(speed=10)
    stalled = StalledClock(telegram_api.clock, stall=0.0)
    a, b = await processes(fake_redis, clocks=[stalled, telegram_api.clock])
    group = telegram_api.add_group("Durak night")
    (player,) = people(telegram_api, 1, 3001)
    chat, user = str(group.id), str(player.id)
    for version in (1, 2, 3):  # the chat's burst is spent
        a.submit([screen(kind, chat, user, version)])
        await a.wait_idle()
    stalled.stall = 20.0  # process A is held up while its screen for version 5 waits for the chat's pace
    a.submit([screen(kind, chat, user, 5)])
    await telegram_api.clock.sleep(0.2)
    b.submit([screen(kind, chat, user, 6)])
    await idle(a, b)
    shown = [words for _, words in sent_to(telegram_api, group.id if kind == "table" else player.id)]
    assert shown[-1] == f"{kind} v6", f"the chat went back to an older {kind}: {shown}"
    assert f"{kind} v5" not in shown
    assert a.superseded == 1


def hands_left(fake: FakeTelegram, user: FakeUser) -> list[str]:
    """The texts of the bot's messages still in the person's private chat, oldest first."""
    chat = fake.chat(user)
    return [m.current.plain for m in chat.messages.values() if m.from_bot and not m.deleted]


async def a_hand_both_processes_edited(
    fake: FakeTelegram, make: Any, redis: Any, user_id: int, speed: float = 10
) -> tuple[Delivery, Delivery, str, str, FakeUser]:
    """Processes A and B; A sent a person's hand (v1), B edited it (v2): both know its message."""
    fake.clock = FakeClock(speed=speed)
    a, b = await make(redis)
    group = fake.add_group("Durak night")
    (player,) = people(fake, 1, user_id)
    chat, user = str(group.id), str(player.id)
    a.submit([ShowHand(chat, user, text("hand v1"), "g1", version=1)])
    await a.wait_idle()
    b.submit([ShowHand(chat, user, text("hand v2"), "g1", version=2)])
    await b.wait_idle()
    return a, b, chat, user, player


async def test_a_hand_announced_by_one_process_is_the_one_the_other_process_edits_next(
    telegram_api: FakeTelegram, processes: Any, fake_redis: Any
) -> None:
    a, b, chat, user, player = await a_hand_both_processes_edited(telegram_api, processes, fake_redis, 3101)
    a.submit([ShowHand(chat, user, text("hand v3"), "g1", version=3, announce=True)])  # a new hand, old gone
    await a.wait_idle()
    b.submit([ShowHand(chat, user, text("hand v4"), "g1", version=4)])
    await idle(a, b)
    assert hands_left(telegram_api, player) == ["hand v4"], "one hand, the newest"
    sends = [r for r in telegram_api.call_log if r.method == "sendMessage" and r.status == 200]
    assert len(sends) == 2, "the first hand and the announced one; v4 is an edit of the announced hand"


async def test_an_edit_waits_while_another_process_posts_that_screen_anew(
    telegram_api: FakeTelegram, processes: Any, fake_redis: Any
) -> None:
    a, b, chat, user, player = await a_hand_both_processes_edited(telegram_api, processes, fake_redis, 3201)
    telegram_api.hold("sendMessage")  # A's announced hand is on its way to Telegram ...
    a.submit([ShowHand(chat, user, text("hand v3"), "g1", version=3, announce=True)])
    await telegram_api.wait_until(lambda: telegram_api.held_calls == 1, what="the announced hand sent")
    b.submit([ShowHand(chat, user, text("hand v4"), "g1", version=4)])  # ... when B has the next one
    await telegram_api.clock.sleep(1.0)
    telegram_api.release()
    await idle(a, b)
    assert hands_left(telegram_api, player) == ["hand v4"], "one hand, the newest"


async def test_an_edit_waits_while_another_processs_edit_of_that_screen_is_in_flight(
    telegram_api: FakeTelegram, processes: Any, fake_redis: Any
) -> None:
    a, b, chat, user, player = await a_hand_both_processes_edited(
        telegram_api, processes, fake_redis, 3301, speed=1
    )
    telegram_api.hold("editMessageText")  # A's edit is slow to reach Telegram ...
    a.submit([ShowHand(chat, user, text("hand v3"), "g1", version=3)])
    await telegram_api.wait_until(lambda: telegram_api.held_calls == 1, what="A's edit sent")
    b.submit([ShowHand(chat, user, text("hand v4"), "g1", version=4)])  # ... B has the next one meanwhile
    await asyncio.sleep(1.5)  # past the private chat's pace: B's edit would be on its way too
    await telegram_api.release_newest_first()  # were both on their way, B's would land first
    await idle(a, b)
    assert hands_left(telegram_api, player) == ["hand v4"], "the newest hand, not the one that landed last"


# ---- overload degrades by importance -----------------------------------------------------------------


async def test_an_overloaded_token_sends_the_acting_hand_first_then_the_table_then_the_rest(
    telegram_api: FakeTelegram, processes: Any, fake_redis: Any
) -> None:
    telegram_api.clock = FakeClock(speed=2)
    a, b = await processes(fake_redis)
    busy = [telegram_api.add_group(f"busy {n}") for n in range(50)]  # fakeredis: 100 connections at most
    readers = people(telegram_api, 16, 4001)
    for index, other in enumerate(busy):  # other games' tables and replies: seconds of the token's budget
        (a if index % 2 else b).submit(
            [ShowTable(str(other.id), text("busy"), "g9", version=1, in_play=True)]
        )
    for round_ in range(3):
        for index, reader in enumerate(readers):
            (b if index % 2 else a).submit([Reply(str(reader.id), text(f"rules {round_}"))])
    sent = telegram_api.all_send_times
    await telegram_api.wait_until(lambda: len(sent) >= 30, timeout=30, what="the token busy")
    group = telegram_api.add_group("Durak night")
    acting, *waiting = people(telegram_api, 4, 5001)
    chat = str(group.id)
    table = ShowTable(chat, text("our table"), "g1", version=7, turn_user=str(acting.id), in_play=True)
    effects: list[Any] = [table]  # a running game's table (a lobby or the end goes with the acting hands)
    effects += [ShowHand(chat, str(user.id), text("waiting hand"), "g1", version=7) for user in waiting]
    effects.append(ShowHand(chat, str(acting.id), text("acting hand"), "g1", version=7))
    a.submit(effects)
    await idle(a, b, timeout=60.0)

    hand_at = sent_to(telegram_api, acting.id)[0][0]
    table_at = sent_to(telegram_api, group.id)[0][0]
    waiting_at = [sent_to(telegram_api, user.id)[0][0] for user in waiting]
    assert hand_at < table_at < min(waiting_at), "the acting hand, then the table, then waiting hands"
    for reader in readers:  # nothing lost: replies wait, they are not dropped
        assert [words for _, words in sent_to(telegram_api, reader.id)] == ["rules 0", "rules 1", "rules 2"]
    for other in busy:
        assert [words for _, words in sent_to(telegram_api, other.id)] == ["busy"]
    assert len(telegram_api.rate_limited) <= 1, f"429s: {telegram_api.rate_limited}"
