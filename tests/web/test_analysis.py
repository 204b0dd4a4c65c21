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

from adapters.web.limits import analysis_refusal
from adapters.web.links import parse_replay_ref, replay_ref
from bot.game.archive import Archived
from bot.i18n import translator
from bot.runtime.ai_work import AnalysisJob, analysis_steps
from bot.runtime.analyses import Analyses, Busy, Progress, started_budget
from bot.runtime.ratelimit import PressLimiter
from core.ai.analysis import Analysis
from storage.keys import analysis_key, archive_key
from storage.store import ARCHIVE_TTL, RedisGameStore
from tests.bot.harness import Harness
from tests.web.browser import replay_page, serving
from tests.web.pages import ANN, BOB, EVE, TOKEN, auth, front_end, served
from tests.web.test_replay import play_to_the_end


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


class Listing:
    """The AI pool's `offload` for a test about the jobs sent, not their answers: it lists a game's decisions
    as a worker does and evaluates none of them (each batch answers no decision)."""

    def __init__(self) -> None:
        self.jobs: list[AnalysisJob] = []

    async def __call__(self, fn: Callable[[AnalysisJob], Any], job: AnalysisJob) -> Any:
        self.jobs.append(job)
        return fn(job) if fn is analysis_steps else ()


async def finished(analyses: Analyses, game_id: str, archived: Archived) -> Analysis:
    """Ask until the analysis is computed (each ask of a started or computed one is free)."""
    for _ in range(400):
        found = await analyses.ask(game_id, archived)
        if isinstance(found, Analysis):
            return found
        await asyncio.sleep(0.01)
    raise AssertionError("the analysis never finished")


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


async def test_an_analysis_holds_a_worker_for_one_decision_at_a_time(harness: Harness) -> None:
    """A game move waits behind at most the one batch running when it is asked (`bot.runtime.ai_pool`): so a
    batch is one decision, 50-300 ms of a worker, never a run of them."""
    _, game_id = await finished_game(harness)
    archived = await harness.service.queries.archived(game_id)
    assert archived is not None
    workers = Listing()
    await finished(Analyses(harness.store, workers), game_id, archived)  # the batch `durak-bot run` uses
    batches = [job.steps for job in workers.jobs if job.steps]
    assert len(batches) > 1 and all(len(steps) == 1 for steps in batches)


async def test_a_person_starts_five_new_analyses_an_hour_and_reads_the_finished_ones_freely(
    harness: Harness,
) -> None:
    _, game_id = await finished_game(harness)
    played = await harness.service.queries.archived(game_id)
    assert played is not None
    now = [0.0]
    found = Analyses(harness.store, Listing(), max_running=20, budget=started_budget(lambda: now[0]))
    games = {f"g{n}": Archived(f"tg:-{n}", played.people, played.record) for n in range(9)}  # a chat each
    ann, bob = ("tg", ANN.id), ("tg", BOB.id)
    for n in range(5):
        assert isinstance(await found.ask(f"g{n}", games[f"g{n}"], asker=ann), Progress)
    assert await found.ask("g5", games["g5"], asker=ann) is Busy.PERSON
    assert isinstance(await finished(found, "g0", games["g0"]), Analysis)
    assert isinstance(await found.ask("g0", games["g0"], asker=ann), Analysis), "a finished one costs nothing"
    assert isinstance(await found.ask("g5", games["g5"], asker=bob), Progress), "another person's own budget"
    now[0] += 11 * 60
    assert await found.ask("g6", games["g6"], asker=ann) is Busy.PERSON
    now[0] += 60  # one start comes back every 12 minutes
    assert isinstance(await found.ask("g6", games["g6"], asker=ann), Progress)
    assert await found.ask("g7", games["g7"], asker=ann) is Busy.PERSON


async def test_past_five_new_analyses_an_hour_a_person_is_refused_and_told_when_to_ask_again(
    harness: Harness, fake_redis: Any
) -> None:
    ref, game_id = await finished_game(harness)
    archived = await harness.service.queries.archived(game_id)
    assert archived is not None
    others = [f"other{n}" for n in range(5)]  # more games of the same chat
    for other in others:
        await harness.store.redis.set(archive_key(other), archived.record)
    found = Analyses(harness.store, Listing(), budget=started_budget(lambda: 0.0))
    asks = PressLimiter(rate=1000, burst=1000)  # the page's polling, here as fast as the test asks
    front, _ = front_end(harness, fake_redis, analyses=found, analysis_limiter=asks)
    async with served(front) as client:
        for other in [game_id, *others[:4]]:
            assert (await computed(client, ANN, replay_ref(harness.chat, other))).status == 200
        refused = await analysis_of(client, ANN, replay_ref(harness.chat, others[4]))
        said = (await refused.json())["error"]
        again = await analysis_of(client, ANN, ref)  # computed: free
        bobs = await computed(client, BOB, replay_ref(harness.chat, others[4]))
    assert refused.status == 429 and refused.headers["Retry-After"] == "720"
    assert said == "You have started many analyses lately: try again in 12 minutes."
    assert again.status == 200 and bobs.status == 200


async def test_an_ask_refused_for_another_reason_costs_the_person_nothing(harness: Harness) -> None:
    _, game_id = await finished_game(harness)
    played = await harness.service.queries.archived(game_id)
    assert played is not None
    found = Analyses(harness.store, Workers(hold=True), max_running=1, budget=started_budget(lambda: 0.0))
    ann = ("tg", ANN.id)
    assert isinstance(
        await found.ask("g0", Archived("tg:-1", played.people, played.record), asker=ann), Progress
    )
    for _ in range(10):
        assert await found.ask("g1", Archived("tg:-2", played.people, played.record), asker=ann) is Busy.FULL
    assert found.budget.buckets[ann][0] == 4, "only the one started was counted"
    await found.aclose()


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "You have started many analyses lately: try again in 12 minutes."),
        ("ru", "Вы недавно запустили много разборов: попробуйте снова через 12 минут."),
        ("it", "Hai avviato molte analisi di recente: riprova tra 12 minuti."),
    ],
)
def test_a_person_past_their_analyses_is_told_when_to_ask_again(lang: str, text: str) -> None:
    assert analysis_refusal(Busy.PERSON, translator(lang)) == (text, str(12 * 60))


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
