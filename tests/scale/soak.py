"""The soak run: worker processes play many simultaneous games through their own `GameService`, all on one
redis-server, and report what they saw; `check_soak` then proves it against what Redis holds.

Each worker runs in a process of its own (spawned), so the two share nothing but Redis. People press the
first button of their hand (lowest card first, so games end soon), one chat in four has an easy AI seat that
moves inside the service, and one move in ten is pressed twice at once, as an impatient person does.
"""

from __future__ import annotations

import asyncio
import gc
import json
import multiprocessing as mp
import random
import time
from dataclasses import dataclass

from bench.service import PLATFORM, SimulatedChat
from bot.context import ServiceConfig
from bot.service import GameService
from storage import ChatRef
from storage.connect import client_for_url
from storage.store import RedisGameStore


@dataclass(frozen=True)
class Played:
    chat_id: str
    game_id: str
    moves_applied: int  # presses by people that moved the game on
    finished: bool


@dataclass
class WorkerReport:
    played: list[Played]
    rss_after_round: list[int]  # bytes, after each round of games (garbage collected)
    round_trips: int
    seconds: float


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


async def play_rounds(
    url: str, worker: int, games: int, rounds: int, limit: float, think: float
) -> WorkerReport:
    client = client_for_url(url)
    store = RedisGameStore(client)
    service = GameService(store, ServiceConfig(ai_delay=0.0))
    rng = random.Random(worker)
    sizes = (2, 3, 4, 6)
    chats = [
        SimulatedChat(
            service,
            f"-{worker + 1}{index:05d}",
            sizes[index % len(sizes)],
            rng,
            think,
            ai=1 if index % 4 == 3 else 0,
            policy="first",
            double_tap=0.1,
        )
        for index in range(games)
    ]
    began = time.monotonic()
    deadline = time.perf_counter() + limit

    async def one(chat: SimulatedChat) -> Played:
        finished = await chat.play_one_game(None, deadline)
        return Played(chat.chat_id, chat.game_id, chat.moves_applied, finished)

    played: list[Played] = []
    rss: list[int] = []
    for _ in range(rounds):
        played += await asyncio.gather(*(one(chat) for chat in chats))
        gc.collect()
        rss.append(rss_bytes())
    report = WorkerReport(played, rss, store.round_trips, time.monotonic() - began)
    await client.aclose()
    return report


def worker_main(
    url: str, worker: int, games: int, rounds: int, limit: float, think: float, out: mp.Queue
) -> None:
    out.put(asyncio.run(play_rounds(url, worker, games, rounds, limit, think)))


def run_soak(
    url: str, processes: int, games: int, rounds: int, limit: float, think: float = 0.0
) -> list[WorkerReport]:
    """``games`` simultaneous games in all, split over ``processes``, each chat playing ``rounds`` games;
    each person waits about ``think`` seconds before each press (0: at once)."""
    ctx = mp.get_context("spawn")
    out: mp.Queue = ctx.Queue()
    share = [games // processes + (i < games % processes) for i in range(processes)]
    workers = [
        ctx.Process(target=worker_main, args=(url, i, share[i], rounds, limit, think, out))
        for i in range(processes)
    ]
    for process in workers:
        process.start()
    try:
        reports = [out.get(timeout=limit + 60) for _ in workers]
    finally:
        for process in workers:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
    return reports


async def check_soak(url: str, reports: list[WorkerReport], rounds: int) -> dict[str, int]:
    """Every game over with a result in the archive, each person's applied presses in its log exactly once,
    and each chat's stats adding up to its decided games. Returns counts for the report."""
    client = client_for_url(url)
    store = RedisGameStore(client)
    decided: dict[str, int] = {}
    games = moves = 0
    try:
        for played in (p for report in reports for p in report.played):
            assert played.finished, f"{played.chat_id}: game {played.game_id} did not end in time"
            text = await store.archived_game(played.game_id)
            assert text is not None, f"{played.chat_id}: no archive for {played.game_id}"
            archive = json.loads(text)
            assert archive["result"] is not None
            people = {seat for seat, s in enumerate(archive["seats"]) if s["ai"] is None}
            by_people = sum(1 for seat, _ in archive["log"] if seat in people)
            assert by_people == played.moves_applied, (
                f"{played.game_id}: {by_people} moves by people in the log, {played.moves_applied} applied"
            )
            decided.setdefault(played.chat_id, 0)
            durak = archive["result"]["durak"]  # stats count people only: an AI durak is not in them
            decided[played.chat_id] += durak is not None and durak in people
            games += 1
            moves += len(archive["log"])
        for chat_id, count in decided.items():
            rows = await store.stats(ChatRef(PLATFORM, chat_id), limit=10)
            duraks = sum(row.durak for row in rows)
            assert duraks == count, f"{chat_id}: {duraks} durak counts for {count} games lost by a person"
            assert all(row.games == rounds for row in rows), f"{chat_id}: {[r.games for r in rows]}"
    finally:
        await client.aclose()
    return {"games": games, "moves": moves, "decided": sum(decided.values())}
