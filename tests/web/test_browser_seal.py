"""The replay page checks a game's sealed deal in the browser (adapters/web/static/seal.js, Web Crypto),
and its verdict is the offline command's (`core.commitment.verify`, `durak-bot verify`) on 100 games:
honest ones of every rule set, and ones whose salt, order or mid-game deck was tampered with."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser

from adapters.web.replay import position, refill
from adapters.web.server import WebFrontEnd
from core import Game, new_game
from core.commitment import PlayedGame, commitment, dealt_order, deck_text, verify
from core.state import clone_game
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.core.invariants import random_settings
from tests.web.browser import deliver_nowhere, headless_chromium, serving

TOKEN = "7012345678:AAHq3xYzW9-the_seal_tests_bot_token"
CHECK_IN_THE_PAGE = """async (cases) => {
  const seal = await import("./seal.js");
  const verdicts = [];
  for (const c of cases) verdicts.push((await seal.checkDeal(c.deal, c.steps)).ok);
  return verdicts;
}"""


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with headless_chromium() as chromium:
        yield chromium


def played(game: Game, rng: random.Random, alter_at: int | None) -> tuple[Game, list[dict[str, Any]], bool]:
    """The game played to the end with random legal moves, every position as the replay shows it, and
    whether its talon was reordered at step ``alter_at``, as a cheating dealer would (when it still held
    more than two cards)."""
    steps = [position(game, 0, None, [])]
    altered = False
    while not game.is_over:
        if game.step == alter_at and len(game.talon) > 2:
            reordered = clone_game(game)
            reordered.talon = (*reversed(game.talon[:-1]), game.talon[-1])
            game, altered = reordered, True
        seat = game.to_act
        assert seat is not None
        game = game.apply(seat, rng.choice(game.legal_actions(seat)))
        steps.append(position(game, game.step, seat, [], refill(game)))
    return game, steps, altered


def case(number: int, rng: random.Random) -> tuple[dict[str, Any], bool, bool]:
    """One game's revealed deal and positions, tampered by ``number % 4``; the command's verdict, and
    whether anything was changed."""
    settings, players = random_settings(rng)
    if rng.random() < 0.3:
        settings = settings.model_copy(update={"severny": True})
    dealt = new_game(settings, [f"P{n}" for n in range(players)], seed=rng.getrandbits(63))
    order = dealt_order(dealt)
    salt = f"{rng.getrandbits(128):032x}"
    seal = commitment(order, salt)
    tamper = number % 4
    ended, steps, altered = played(dealt, rng, alter_at=4 if tamper == 3 else None)
    shown_order, shown_salt = list(order), salt
    if tamper == 1:
        shown_salt = f"{rng.getrandbits(128):032x}"
    if tamper == 2:
        shown_order[1], shown_order[-2] = shown_order[-2], shown_order[1]
    assert ended.result is not None
    record = PlayedGame(
        settings, dealt.players, dealt.dealer, dealt.last_durak, tuple(ended.log),
        ended.result.durak, ended.result.draw, tuple(ended.result.order_out),
    )  # fmt: skip
    verdict = verify(record, shown_order, shown_salt, seal).ok
    deal = {"commitment": seal, "salt": shown_salt, "order": deck_text(shown_order)}
    return {"deal": deal, "steps": steps}, verdict, tamper in (1, 2) or altered


async def test_the_pages_check_and_the_command_agree_on_a_hundred_games(
    browser: Browser, fake_redis: Any
) -> None:
    rng = random.Random(29)
    cases = [case(number, rng) for number in range(100)]
    front = WebFrontEnd(
        Harness(RedisGameStore(fake_redis)).service, fake_redis, deliver_nowhere, telegram_token=TOKEN
    )
    async with serving(front) as base:
        page = await browser.new_page()
        await page.goto(f"{base}static/replay.css")  # a page of the server's own origin: a secure context
        in_the_page = await page.evaluate(
            CHECK_IN_THE_PAGE.replace("./seal.js", f"{base}static/seal.js"), [c for c, _, _ in cases]
        )
    by_the_command = [verdict for _, verdict, _ in cases]
    assert in_the_page == by_the_command
    assert by_the_command == [not tampered for _, _, tampered in cases]  # every change caught, nothing else
    assert sum(tampered for _, _, tampered in cases) >= 70
