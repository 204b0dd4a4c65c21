"""`durak-bot replay <id> --analyse`: the game, then each player's decisions judged by the hard AI."""

from __future__ import annotations

import io
import re

import fakeredis

from adapters.local.demo import DemoOptions, play_demo
from adapters.local.replay import analyse_here, print_analysis
from storage.store import RedisGameStore


async def test_the_terminal_command_prints_the_costliest_decisions() -> None:
    client = fakeredis.aioredis.FakeRedis(server=fakeredis.FakeServer(), decode_responses=True)
    store = RedisGameStore(client)
    options = DemoOptions(words="deck=24", players=2, seed=5, ai="easy", brief=True)
    assert await play_demo(store, options, io.StringIO()) == 0
    (key,) = await client.keys("durak:archive:*")
    game_id = key.rsplit(":", 1)[1]
    archived = await store.archived_game(game_id)
    await client.aclose()
    assert archived is not None

    progress, shown = io.StringIO(), io.StringIO()
    analysis = await analyse_here(game_id, archived, 1, progress)
    print_analysis(archived, analysis, shown)
    lines = shown.getvalue().splitlines()
    total = len(analysis.decisions)
    assert f"analysing: {total} of {total} decisions" in progress.getvalue()
    assert "Costliest decisions" in lines
    costly = [line for line in lines if re.fullmatch(r"Step \d+ · .+: -\d+%: .+ here; .+ was better", line)]
    assert costly, shown.getvalue()  # easy players make costly moves
    assert len(costly) == min(10, sum(d.costly for d in analysis.decisions))
