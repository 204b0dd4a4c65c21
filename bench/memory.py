"""What the Telegram adapter keeps per chat, and what a send costs besides the Bot API call.

    python bench/memory.py [--chats 100000] [--sends 5000]

Touches ``--chats`` private chats the way a busy bot does: each chat's user is seen (name and language
cached), its stored message ids are loaded, and a hand message is sent to it through the delivery queue,
then the chat goes quiet. The Bot API is a no-op stand-in and the store answers from memory, so what grows
is the adapter's own state. Printed: the process's RSS before and after (target: below 150 MB after
100,000 chats), the size of each per-chat structure, and the per-send overhead (microseconds per
submit+send, queue to done) on a fresh bot and after the touched chats went quiet.

Time is virtual (pacing waits advance a clock instead of sleeping), so Telegram's limits are kept but cost
no wall time. To compare with another version of the adapter, run this file from a copy of that tree.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters.telegram.delivery import Delivery  # noqa: E402
from adapters.telegram.memory import ChatMemory  # noqa: E402
from bot.effects import ShowHand  # noqa: E402
from bot.render.text import line, message  # noqa: E402
from storage.models import ChatRecord  # noqa: E402

BATCH = 1000  # chats touched together; the clock then moves on a second
HAND = message([line("Your cards: 6♠ 7♥ 9♦ 10♣ J♠ Q♥")])


class VirtualClock:
    """Pacing's clock: a wait moves time on instead of sleeping."""

    def __init__(self) -> None:
        self.at = 0.0

    def now(self) -> float:
        return self.at

    async def sleep(self, seconds: float) -> None:
        self.at += max(0.0, seconds)
        await asyncio.sleep(0)


@dataclass
class Sent:
    message_id: int


class NoOpBot:
    """Answers every send with a new message id and every edit with success, at once."""

    username = "durak_bench_bot"  # as getMe would have answered

    def __init__(self) -> None:
        self.calls = 0

    async def send_message(self, chat_id: int, text: str, **options: Any) -> Sent:
        self.calls += 1
        return Sent(self.calls)

    async def edit_message_text(self, text: str, chat_id: int, message_id: int, **options: Any) -> bool:
        self.calls += 1
        return True


class MemoryStore:
    """The two store calls the adapter makes, answered without I/O (nothing kept: the adapter's caches are
    what is measured)."""

    async def load(self, chat: object) -> ChatRecord:
        return ChatRecord()

    async def set_messages(self, chat: object, updates: dict[str, str | None]) -> None:
        return None


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for row in status:
            if row.startswith("VmRSS:"):
                return int(row.split()[1]) / 1024
    return float("nan")


def hand(user: int, version: int) -> ShowHand:
    chat = str(user)  # a practice game in the user's private chat
    return ShowHand(chat, chat, HAND, game_id="g1", version=version)


async def touch(
    delivery: Delivery, memory: ChatMemory, clock: VirtualClock, users: range, version: int
) -> None:
    for start in range(users.start, users.stop, BATCH):
        for user in range(start, min(start + BATCH, users.stop)):
            memory.saw_user(str(user), f"Player {user}", "en")
            delivery.submit([hand(user, version)])
        await delivery.wait_idle(600)
        clock.at += 1.0


async def per_send(delivery: Delivery, clock: VirtualClock, users: range, version: int) -> float:
    """Microseconds per submit+send, one chat at a time."""
    began = time.perf_counter()
    for user in users:
        delivery.submit([hand(user, version)])
        await delivery.wait_idle(600)
        clock.at += 0.05
    return (time.perf_counter() - began) / len(users) * 1e6


def sizes(delivery: Delivery, memory: ChatMemory) -> str:
    counts = {
        "queues": len(delivery.queues),
        "message ids": len(memory.ids),
        "languages": len(memory.langs),
        "names": len(memory.names),
        "sent texts": len(delivery.sent),
    }
    return ", ".join(f"{name} {count:,}" for name, count in counts.items())


async def main(chats: int, sends: int) -> None:
    clock = VirtualClock()
    memory = ChatMemory(MemoryStore())  # type: ignore[arg-type]
    delivery = Delivery(NoOpBot(), memory, clock)  # type: ignore[arg-type]
    fresh = range(10**9, 10**9 + sends)
    await per_send(delivery, clock, range(10**9 + sends, 10**9 + sends + 200), 1)  # warm up
    gc.collect()
    before = rss_mb()
    fresh_us = await per_send(delivery, clock, fresh, 2)
    began = time.perf_counter()
    await touch(delivery, memory, clock, range(1, chats + 1), 1)
    touched = time.perf_counter() - began
    gc.collect()
    after = rss_mb()
    print(f"RSS before: {before:.1f} MB; after touching {chats:,} chats: {after:.1f} MB (target < 150 MB)")
    print(f"touching took {touched:.1f} s ({touched / chats * 1e6:.0f} us a chat)")
    print(f"kept: {sizes(delivery, memory)}")
    busy_us = await per_send(delivery, clock, range(1, sends + 1), 2)
    print(f"per send: {fresh_us:.0f} us on a fresh bot, {busy_us:.0f} us after {chats:,} chats went quiet")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chats", type=int, default=100_000)
    parser.add_argument("--sends", type=int, default=5000)
    options = parser.parse_args()
    asyncio.run(main(options.chats, options.sends))
