"""A finished game's analysis on the replay page: `GET api/analysis`, for the game's players only, computed
once in the AI workers (here: a stand-in that runs the workers' jobs on the loop, or holds them), kept in
the store beside the archive."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from playwright.async_api import Browser

from adapters.web.links import parse_replay_ref, replay_ref
from bot.runtime.ai_work import AnalysisJob
from bot.runtime.analyses import Analyses
from storage.keys import analysis_key, archive_key
from storage.store import ARCHIVE_TTL, RedisGameStore
from tests.bot.harness import Harness
from tests.web.browser import replay_page, serving
from tests.web.pages import ANN, BOB, EVE, TOKEN, auth, front_end, served
from tests.web.test_replay import browser, play_to_the_end  # noqa: F401 (the Chromium fixture)


@pytest.fixture
def harness(fake_redis: Any) -> Harness:
    return Harness(RedisGameStore(fake_redis))


SHOTS = Path(os.environ["ANALYSIS_SHOTS"]) if os.environ.get("ANALYSIS_SHOTS") else None  # save a screenshot


class Workers:
    """The AI pool's `offload` for a test: runs each job here, or holds every job until `release`."""

    def __init__(self, hold: bool = False) -> None:
        self.jobs: list[AnalysisJob] = []
        self.held = asyncio.Event()
        if not hold:
            self.held.set()

    async def __call__(self, fn: Callable[[AnalysisJob], Any], job: AnalysisJob) -> Any:
        self.jobs.append(job)
        await self.held.wait()
        return fn(job)


def analyses(harness: Harness, workers: Workers) -> Analyses:
    return Analyses(harness.store, workers, batch=50)


async def finished_game(harness: Harness) -> tuple[str, str]:
    """A stacked game played to its end: its replay's ref and its id."""
    ref, _ = await play_to_the_end(harness)
    game = parse_replay_ref(ref)
    assert game is not None
    return ref, game.game_id


async def analysis_of(client: Any, user: Any, ref: str) -> Any:
    return await client.get("/api/analysis", params={"ref": ref}, headers={"Authorization": auth(user)})


async def computed(client: Any, user: Any, ref: str) -> Any:
    """Ask until the analysis is there (202 meanwhile)."""
    for _ in range(400):
        answer = await analysis_of(client, user, ref)
        if answer.status != 202:
            return answer
        await asyncio.sleep(0.01)
    raise AssertionError("the analysis never finished")


async def test_non_players_are_refused_the_analysis(harness: Harness, fake_redis: Any) -> None:
    ref, game_id = await finished_game(harness)
    workers = Workers()
    front, _ = front_end(harness, fake_redis, analyses=analyses(harness, workers))
    async with served(front) as client:
        stranger = await analysis_of(client, EVE, ref)
        other_chat = await analysis_of(client, ANN, replay_ref("-200", game_id))
        unknown = await analysis_of(client, ANN, replay_ref(harness.chat, "nosuch"))
        unsigned = await client.get("/api/analysis", params={"ref": ref})
    assert [stranger.status, other_chat.status, unknown.status, unsigned.status] == [403, 404, 404, 401]
    assert workers.jobs == []


async def test_a_second_request_while_computing_does_not_start_a_second_job(
    harness: Harness, fake_redis: Any
) -> None:
    ref, _ = await play_to_the_end(harness)
    workers = Workers(hold=True)
    front, _ = front_end(harness, fake_redis, analyses=analyses(harness, workers))
    async with served(front) as client:
        first = await analysis_of(client, ANN, ref)
        await asyncio.sleep(0.01)
        second = await analysis_of(client, BOB, ref)
        progress = await second.json()
        assert (first.status, second.status) == (202, 202)
        assert progress == {"progress": {"done": 0, "total": 0}}
        assert len(workers.jobs) == 1  # the one listing the decisions, held
        workers.held.set()
        answer = await computed(client, ANN, ref)
        assert answer.status == 200
    listed = [job for job in workers.jobs if not job.steps]
    evaluated = [step for job in workers.jobs for step in job.steps]
    assert len(listed) == 1 and len(evaluated) == len(set(evaluated)) > 0  # each decision once


async def test_the_result_is_cached(harness: Harness, fake_redis: Any) -> None:
    ref, game_id = await finished_game(harness)
    workers = Workers()
    front, _ = front_end(harness, fake_redis, analyses=analyses(harness, workers))
    async with served(front) as client:
        first = await (await computed(client, ANN, ref)).json()
    asked = len(workers.jobs)
    assert asked >= 2
    kept = await fake_redis.ttl(analysis_key(game_id))
    assert 0 < kept <= await fake_redis.ttl(archive_key(game_id)) <= ARCHIVE_TTL  # gone with the archive
    fresh = Workers()  # another process: nothing in memory, the store has it
    front, _ = front_end(harness, fake_redis, analyses=analyses(harness, fresh))
    async with served(front) as client:
        again = await analysis_of(client, BOB, ref)
        assert again.status == 200
        assert await again.json() == first
    assert fresh.jobs == [] and len(workers.jobs) == asked
    assert [player["name"] for player in first["players"]] == ["Ann", "Bob"]
    assert all(player["series"] for player in first["players"])


async def test_one_analysis_runs_per_chat(harness: Harness, fake_redis: Any) -> None:
    ref, game_id = await finished_game(harness)
    workers = Workers(hold=True)
    front, _ = front_end(harness, fake_redis, analyses=analyses(harness, workers))
    archived = await harness.service.queries.archived(game_id)
    assert archived is not None
    await harness.store.redis.set(archive_key("other"), archived.record)  # another game of the same chat
    async with served(front) as client:
        assert (await analysis_of(client, ANN, ref)).status == 202
        busy = await analysis_of(client, ANN, replay_ref(harness.chat, "other"))
        assert busy.status == 429
        workers.held.set()
        await computed(client, ANN, ref)


async def test_the_chart_and_the_jump_links_appear(
    browser: Browser,  # noqa: F811 (the fixture imported from the replay's tests)
    harness: Harness,
    fake_redis: Any,
) -> None:
    harness.clock = time.time()
    ref, _ = await finished_game(harness)
    front, _ = front_end(harness, fake_redis, analyses=analyses(harness, Workers()))
    page = await replay_page(browser, ANN, ref, TOKEN)
    async with serving(front) as base:
        await page.goto(f"{base}?{urlencode({'tgWebAppStartParam': ref})}")
        await page.click("[data-go='analyse']")
        await page.wait_for_selector(".analysis-chart polyline", timeout=60_000)
        assert await page.locator(".analysis-chart").count() == 2
        jump = page.locator(".analysis-costly [data-jump]").first
        step = await jump.get_attribute("data-jump")
        await jump.click()
        await page.wait_for_selector(f"#app[data-step='{step}']")
        if SHOTS:
            await page.locator(".replay-analysis").screenshot(path=str(SHOTS / "webapp-analysis.png"))
