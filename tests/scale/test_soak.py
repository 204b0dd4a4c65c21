"""Many simultaneous games through the service in two processes sharing one Redis (issue 10's soak).

The full run (1,000 games at once, twice over, marked ``soak``): ``python -m pytest -m soak tests/scale``.
The default run plays 50 at once, twice over.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from storage.embedded import RedisServer
from tests.scale.soak import check_soak, run_soak

pytestmark = pytest.mark.redis_server


def soak(make_server: Callable[..., RedisServer], games: int, limit: float, think: float = 0.0) -> None:
    server = make_server("soak")
    reports = run_soak(server.url, processes=2, games=games, rounds=2, limit=limit, think=think)
    counts = asyncio.run(check_soak(server.url, reports, rounds=2))
    assert counts["games"] == 2 * games
    # memory stays flat: the second round of as many games adds (almost) nothing to either worker
    for report in reports:
        first, second = report.rss_after_round
        assert second - first < max(8 << 20, first // 20), f"RSS {first >> 20} -> {second >> 20} MiB"
    print(
        f"\n{counts['games']} games, {counts['moves']} moves, {counts['decided']} decided; per worker: "
        + "; ".join(
            f"{r.seconds:.1f} s, RSS {r.rss_after_round[0] >> 20}->{r.rss_after_round[1] >> 20} MiB, "
            f"{r.round_trips} round trips"
            for r in reports
        )
    )


def test_fifty_simultaneous_games_in_two_processes_end_once_each_with_exact_stats(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    soak(redis_server_factory, games=50, limit=60)


@pytest.mark.soak
def test_a_thousand_simultaneous_games_in_two_processes_end_once_each_with_exact_stats(
    redis_server_factory: Callable[..., RedisServer],
) -> None:
    # people think ~1.5 s per press (1,000 games offer ~700 inputs/s): flat out, 500 games in flight per
    # process would queue each input for seconds, past the Redis client's socket timeout
    soak(redis_server_factory, games=1000, limit=1200, think=1.5)
