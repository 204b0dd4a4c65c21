"""The Telegram adapter's per-chat state stays bounded, and a chat's queue ranks what it sends.

Driven without a server: a Bot stand-in that answers at once and a virtual clock (`bench/memory.py`'s), so
thousands of chats and a minute of Telegram's limits take milliseconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from adapters.telegram.delivery import Delivery
from adapters.telegram.items import INFO, SCREEN, TABLE, Item, items_for
from adapters.telegram.lanes import MAX_WAITING_REPLIES, Lanes
from adapters.telegram.memory import ChatMemory
from adapters.telegram.pacing import Limits, TokenBucket
from bench.memory import MemoryStore, NoOpBot, Sent, VirtualClock, hand
from bot.effects import Notice, Reply, ShowTable
from bot.render.text import line, message
from storage.store import RedisGameStore

GROUP = -100


def text(words: str) -> Any:
    return message([line(words)])


class RecordingBot(NoOpBot):
    """Also notes what went where and when (virtual seconds)."""

    def __init__(self, clock: VirtualClock) -> None:
        super().__init__()
        self.clock = clock
        self.log: list[tuple[float, str, int, str]] = []  # (when, method, chat, text)

    async def send_message(self, chat_id: int, text: str, **options: Any) -> Sent:
        self.log.append((self.clock.now(), "send", chat_id, text))
        return await super().send_message(chat_id, text, **options)

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, **options: Any) -> bool:
        self.log.append((self.clock.now(), "edit", chat_id, text))
        return await super().edit_message_text(text, chat_id, message_id, **options)


def delivery(store: Any = None, **sizes: int) -> tuple[Delivery, ChatMemory, VirtualClock, RecordingBot]:
    clock = VirtualClock()
    bot = RecordingBot(clock)
    chats, users = sizes.get("chats", 20_000), sizes.get("users", 50_000)
    memory = ChatMemory(store or MemoryStore(), chats, users)
    return Delivery(bot, memory, clock, texts=chats), memory, clock, bot  # type: ignore[arg-type]


# ---- bounded memory ---------------------------------------------------------------------------------


async def test_a_chat_keeps_no_queue_once_everything_is_sent() -> None:
    sender, memory, clock, bot = delivery()
    for user in range(1, 3001):
        sender.submit([hand(user, 1)])
        if user % 500 == 0:
            await sender.wait_idle()
            clock.at += 1.0
    sender.submit([Reply(str(GROUP - n), text("hello")) for n in range(50)])
    await sender.wait_idle()
    assert bot.calls == 3050
    assert sender.queues == {}, "idle chats keep no queue"


async def test_a_chat_that_went_quiet_keeps_its_pace() -> None:
    sender, memory, clock, bot = delivery()
    for n in range(25):
        sender.submit([Notice(str(GROUP), text(f"notice {n}"))])
        await sender.wait_idle()  # each time the queue empties and is dropped
    times = [at for at, _, _, _ in bot.log]
    assert len(times) == 25
    assert all(len([t for t in times if start <= t < start + 60]) <= 20 for start in times), (
        "never more than 20 in a minute, though the queue was made anew for each"
    )


async def test_the_caches_never_exceed_their_bounds() -> None:
    sender, memory, clock, bot = delivery(chats=100, users=100)
    for user in range(1, 1001):
        memory.saw_user(str(user), f"Player {user}", "en")
        sender.submit([hand(user, 1)])
        await sender.wait_idle()
        assert len(memory.ids) <= 100 and len(memory.langs) <= 100 and len(sender.sent) <= 100
        assert len(memory.names) <= 100 and len(memory.user_langs) <= 100
        clock.at += 0.1
    assert len(sender.pacer.paces) <= sender.pacer.paces.size  # type: ignore[attr-defined]
    assert memory.names.get("1000") == "Player 1000", "the newest are kept"


async def test_a_chat_dropped_from_the_cache_still_edits_its_message(fake_redis: object) -> None:
    store = RedisGameStore(fake_redis)  # type: ignore[arg-type]
    sender, memory, clock, bot = delivery(store, chats=100, users=100)
    sender.submit([hand(1, 1)])
    await sender.wait_idle()
    for user in range(2, 300):  # chat 1 leaves the cache
        sender.submit([hand(user, 1)])
        await sender.wait_idle()
        clock.at += 0.1
    assert "1" not in memory.ids
    sender.submit([ShowTable("1", text("the table, changed"), game_id="g1", version=2)])
    sender.submit([hand(1, 3)])
    await sender.wait_idle()
    assert [method for _, method, chat, _ in bot.log if chat == 1][-1] == "edit", "the stored id was read"


# ---- ranking in a chat's queue ----------------------------------------------------------------------


def post(words: str, lane: int = INFO) -> Item:
    return Item("post", GROUP, str(GROUP), text(words), lane=lane)


def table(words: str, lane: int = SCREEN) -> Item:
    return Item(TABLE, GROUP, str(GROUP), text(words), "g1", lane=lane)


def test_a_table_goes_before_replies_that_wait() -> None:
    lanes = Lanes()
    lanes.add(post("rules"))
    lanes.add(post("help"))
    lanes.add(table("move 1"))
    assert [lanes.pop_head().message for _ in range(3)] == [text("move 1"), text("rules"), text("help")]


def test_the_result_and_its_table_go_first_and_replace_the_table_waiting() -> None:
    lanes = Lanes()
    lanes.add(post("rules"))
    lanes.add(table("move 7"))
    lanes.add(post("notice", SCREEN))
    for item in items_for(
        [
            ShowTable(str(GROUP), text("the end"), "g1"),
            Notice(str(GROUP), text("Game over"), final=True),
        ]
    ):
        lanes.add(item)
    order = [lanes.pop_head().message for _ in range(len(lanes))]
    assert order == [text("the end"), text("Game over"), text("notice"), text("rules")]


def test_a_game_notice_stays_in_the_screens_lane() -> None:
    items = items_for([ShowTable("-5", text("t")), Notice("-5", text("trumps changed"))])
    assert [item.lane for item in items] == [SCREEN, SCREEN]
    assert items_for([Reply("-5", text("rules"))])[0].lane == INFO


def test_equal_replies_waiting_in_a_chat_that_is_behind_are_merged() -> None:
    lanes = Lanes()
    for _ in range(60):
        lanes.add(post("rules"), behind=True)
    assert len(lanes) == 1 and lanes.dropped == 59


def test_a_chat_that_is_behind_keeps_only_the_newest_replies() -> None:
    lanes = Lanes()
    for n in range(10):
        lanes.add(post(f"reply {n}"), behind=True)
    kept = [lanes.pop_head().message for _ in range(len(lanes))]
    assert kept == [text(f"reply {n}") for n in range(10 - MAX_WAITING_REPLIES, 10)]


def test_a_chat_that_is_not_behind_sends_every_reply() -> None:
    lanes = Lanes()
    lanes.add(post("help"))
    lanes.add(post("help"))
    assert len(lanes) == 2, "/start then /help: two answers, when the chat can send them"


def test_a_reply_leaves_the_chat_a_spare_send() -> None:
    bucket = TokenBucket(3, 0.25, now=0.0)
    bucket.take(0.0)
    bucket.take(0.0)
    assert bucket.wait(0.0) == 0, "a table edit may go"
    assert bucket.wait(0.0, spare=Limits().reply_spare) > 0, "a reply waits"


class ManualClock(VirtualClock):
    """Time moves only when the test says so; a sleeper wakes when it has."""

    def __init__(self) -> None:
        super().__init__()
        self.moved = asyncio.Event()

    async def sleep(self, seconds: float) -> None:
        until = self.at + max(0.0, seconds)
        while self.at < until:
            await self.moved.wait()

    def advance(self, seconds: float) -> None:
        self.at += seconds
        self.moved.set()
        self.moved = asyncio.Event()


async def settled(condition: Callable[[], bool]) -> None:
    """Until ``condition`` holds, then a few more turns of the loop (a sleep that was asked for starts)."""
    for _ in range(100):
        if condition():
            for _ in range(5):
                await asyncio.sleep(0)
            return
        await asyncio.sleep(0)
    raise AssertionError("the queue did not get there")


async def test_a_reply_waiting_for_a_spare_send_lets_a_table_go_at_once() -> None:
    clock = ManualClock()
    bot = RecordingBot(clock)
    sender = Delivery(bot, ChatMemory(MemoryStore()), clock)  # type: ignore[arg-type]
    sender.submit([Reply(str(GROUP), text("stats")), Reply(str(GROUP), text("help"))])
    await settled(lambda: len(bot.log) == 2)
    sender.submit([Reply(str(GROUP), text("rules"))])
    await settled(lambda: sender.queues[GROUP].waking is not None)  # it waits for a spare send
    sender.submit([ShowTable(str(GROUP), text("move"), "g1")])
    await settled(lambda: len(bot.log) == 3)
    assert bot.log[2][0::3] == (0.0, "move"), "the table went at once, with the last send the group had"
    await settled(lambda: sender.queues[GROUP].waking is not None)  # the reply waits again
    clock.advance(60)
    await sender.wait_idle()
    assert bot.log[3][3] == "rules"
