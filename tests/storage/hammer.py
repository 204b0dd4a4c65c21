"""A worker process for the lost-update test: increments counters in chats' state JSON, retrying conflicts.

Usage: python -m tests.storage.hammer URL START ROUNDS CHAT [CHAT ...]   (START: a time.time() to begin at)
Prints {"chat": successful saves} as JSON on its last line.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from storage import ChatRef
from storage.connect import client_for_url
from storage.store import RedisGameStore


async def increment(store: RedisGameStore, chat: ChatRef, worker: str) -> int:
    """Add one to the chat's counter; return how many conflicts it took."""
    deadline = time.monotonic() + 30
    conflicts = 0
    while time.monotonic() < deadline:
        record = await store.load(chat)
        state = json.loads(record.state) if record.state else {"count": 0, "by": {}}
        state["count"] += 1
        state["by"][worker] = state["by"].get(worker, 0) + 1
        if await store.save(chat, record.version, json.dumps(state), ttl=600) is not None:
            return conflicts
        conflicts += 1
    raise TimeoutError("could not save within 30 s")


async def main(url: str, start: float, rounds: int, chats: list[ChatRef]) -> dict[str, int]:
    await asyncio.sleep(max(0.0, start - time.time()))  # both workers begin together
    client = client_for_url(url)
    store = RedisGameStore(client, counting_versions=True)  # the version counts the saves
    worker = f"pid{os.getpid()}"
    saved = dict.fromkeys(map(str, chats), 0)
    conflicts = 0
    for _ in range(rounds):
        for chat in chats:
            conflicts += await increment(store, chat, worker)
            saved[str(chat)] += 1
    await client.aclose()
    return saved | {"conflicts": conflicts}


if __name__ == "__main__":
    url, start, rounds, *names = sys.argv[1:]
    chats = [ChatRef.parse(name) for name in names]
    print(json.dumps(asyncio.run(main(url, float(start), int(rounds), chats))))
