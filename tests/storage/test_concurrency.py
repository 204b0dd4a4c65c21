"""Many writers, one game: every applied change is applied once, none is lost."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.platforms import PLATFORMS
from storage import ChatRef
from storage.embedded import RedisServer
from storage.store import RedisGameStore

CHAT = ChatRef("tg", "-100777")
ROOT = Path(__file__).resolve().parents[2]


async def test_fifty_tasks_applying_the_same_move_apply_it_exactly_once(store: RedisGameStore) -> None:
    await store.save(CHAT, 0, json.dumps({"moves": []}), ttl=600)
    everyone_loaded = asyncio.Barrier(50)

    async def apply(task: int) -> int | None:
        record = await store.load(CHAT)
        await everyone_loaded.wait()
        state = json.loads(record.state or "{}")
        state["moves"].append(task)
        return await store.save(CHAT, record.version, json.dumps(state), ttl=600, deadline=1000.0 + task)

    results = await asyncio.wait_for(asyncio.gather(*(apply(n) for n in range(50))), 20)
    winners = [n for n, version in enumerate(results) if version is not None]
    assert len(winners) == 1 and results[winners[0]] == 2
    record = await store.load(CHAT)
    assert (record.version, json.loads(record.state or "")) == (2, {"moves": winners})
    assert await store.claim_due_timers(1e6, platforms=PLATFORMS) == [(CHAT, 2)]


async def test_fifty_tasks_retrying_on_conflict_lose_no_increment(store: RedisGameStore) -> None:
    async def increment() -> None:
        for _ in range(200):
            record = await store.load(CHAT)
            count = int(record.state or 0)
            if await store.save(CHAT, record.version, str(count + 1), ttl=600) is not None:
                return
        raise AssertionError("no save in 200 tries")

    await asyncio.wait_for(asyncio.gather(*(increment() for _ in range(50))), 30)
    record = await store.load(CHAT)
    assert (record.version, record.state) == (50, "50")


@pytest.mark.redis_server
def test_two_processes_hammering_shared_and_own_chats_lose_no_update(redis_server: RedisServer) -> None:
    with redis_server.client() as client:
        client.flushall()
    shared, rounds, start = "tg:shared", 200, time.time() + 1.0
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.storage.hammer",
                redis_server.url,
                str(start),
                str(rounds),
                own,
                shared,
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for own in ("tg:one", "tg:two")
    ]
    outputs = [worker.communicate(timeout=60) for worker in workers]
    assert [w.returncode for w in workers] == [0, 0], [err[-500:] for _, err in outputs]
    saved = [json.loads(out.strip().splitlines()[-1]) for out, _ in outputs]
    assert saved[0]["conflicts"] + saved[1]["conflicts"] > 0, "the workers never overlapped"

    async def final_counts() -> dict[str, dict[str, object]]:
        from storage.connect import client_for_url

        client = client_for_url(redis_server.url)
        store = RedisGameStore(client)
        counts = {}
        for name in ("tg:one", "tg:two", shared):
            record = await store.load(ChatRef.parse(name))
            counts[name] = {"version": record.version, **json.loads(record.state or "{}")}
        await client.aclose()
        return counts

    counts = asyncio.run(final_counts())
    assert counts["tg:one"]["count"] == counts["tg:one"]["version"] == saved[0]["tg:one"] == rounds
    assert counts["tg:two"]["count"] == counts["tg:two"]["version"] == saved[1]["tg:two"] == rounds
    assert counts[shared]["count"] == counts[shared]["version"] == saved[0][shared] + saved[1][shared]
    assert counts[shared]["by"] == {  # each process's own successes, as it counted them itself
        f"pid{w.pid}": s[shared] for w, s in zip(workers, saved, strict=True)
    }
