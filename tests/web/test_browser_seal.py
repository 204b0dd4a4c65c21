"""The replay page checks a game's sealed deal in the browser (adapters/web/static/seal.js, Web Crypto) with
the checks of `core.commitment.CHECKS`, and its verdict is the offline command's (`core.commitment.verify`,
`durak-bot verify`) on the same archived records (tests/bot/tampered_deals.py): the same check fails, at the
same step, for every record; and nothing fails for an honest one."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from playwright.async_api import Browser

from bot.game.archive import revealed_deal
from bot.render.replay import replay_state
from core.commitment import CHECKS
from tests.bot.tampered_deals import DealRecord, deal_records, never_played_swaps, random_rule_records
from tests.fakes.local_server import on_loopback

STATIC = Path(__file__).resolve().parents[2] / "adapters" / "web" / "static"
CHECK_IN_THE_PAGE = """async ([base, sent]) => {
  const seal = await import(base + "static/seal.js");
  const verdicts = [];
  for (const data of JSON.parse(sent)) verdicts.push(await seal.checkDeal(data));
  return { names: seal.CHECK_NAMES, verdicts };
}"""


@pytest.fixture
async def static_files() -> AsyncIterator[str]:
    """The page's own files on 127.0.0.1 (a secure context, where Web Crypto works); the base URL."""
    app = web.Application()
    app.router.add_static("/static/", STATIC)
    async with on_loopback(app) as base:
        yield base


def by_the_command(tampered: DealRecord) -> dict[str, Any]:
    deal = revealed_deal(tampered.record)
    assert deal is not None
    verdict = deal.verdict()
    return {"ok": verdict.ok, "check": verdict.check, "step": verdict.step}


async def in_the_page(browser: Browser, base: str, records: list[DealRecord]) -> dict[str, Any]:
    """The page's check names, and its verdict on each record's replay (as the server sends it)."""
    page = await browser.new_page()
    await page.goto(f"{base}static/replay.css")  # a page of the files' own origin
    # as JSON text, as the server sends a replay (and one string crosses to the page at once)
    replays = json.dumps([replay_state(tampered.record, "en") for tampered in records])
    found: dict[str, Any] = await page.evaluate(CHECK_IN_THE_PAGE, [base, replays])
    return found


def expected(tampered: DealRecord) -> dict[str, Any]:
    return {"ok": tampered.refused_by is None, "check": tampered.refused_by or ""}


async def test_the_page_refuses_each_record_for_the_check_and_step_the_command_does(
    browser: Browser, static_files: str
) -> None:
    records = list(deal_records())
    found = await in_the_page(browser, static_files, records)
    assert found["names"] == list(CHECKS)
    for tampered, verdict in zip(records, found["verdicts"], strict=True):
        assert verdict == by_the_command(tampered), tampered.name
        assert {key: verdict[key] for key in ("ok", "check")} == expected(tampered), tampered.name
        if tampered.step is not None:
            assert verdict["step"] == tampered.step, tampered.name
    assert {tampered.refused_by for tampered in records} == {None, *CHECKS}  # every check is tried


async def test_the_replay_sends_the_page_the_checks_the_command_makes() -> None:
    state = replay_state(deal_records()[0].record, "en")
    assert state["check"]["names"] == list(CHECKS)


async def test_the_page_and_the_command_agree_on_many_games(browser: Browser, static_files: str) -> None:
    """Honest games of random rules, the same games dealt from a talon reordered mid-game, and every game of a
    hundred two-player ones with two cards drawn and never played, dealt with the two swapped."""
    records = [*random_rule_records(60, 29), *never_played_swaps(100)]
    found = await in_the_page(browser, static_files, records)
    for tampered, verdict in zip(records, found["verdicts"], strict=True):
        assert verdict == by_the_command(tampered), tampered.name
        assert {key: verdict[key] for key in ("ok", "check")} == expected(tampered), tampered.name
    assert sum(tampered.refused_by is not None for tampered in records) >= 50
