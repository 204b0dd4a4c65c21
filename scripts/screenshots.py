"""Screenshots of the page at phone size (390x844) for the README: the lobby, a table in mid-game, the result,
and the finished game's analysis on its replay page.

    python scripts/screenshots.py [--out docs/img] [--seed 5] [--scheme light|dark] [--lang uk]

A lobby is opened in a local chat, then the page is driven as a player would: two AI seats added with the
lobby's buttons, Start, legal moves tapped until the table shows a bout worth seeing, then played out; the
result's Replay opened, and its analysis asked for (computed on a thread here: this process has no AI pool).
Needs Debian's Chromium (`apt-get install chromium`) and the playwright package (`pip install -e '.[test]'`);
colour emoji need `fonts-noto-color-emoji`. Nothing is fetched from the internet.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Literal

import fakeredis
from playwright.async_api import Page, async_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adapters.web.links import game_ref  # noqa: E402
from adapters.web.server import WebFrontEnd  # noqa: E402
from adapters.web.sessions import LocalSessions, Viewer  # noqa: E402
from bot.context import ServiceConfig  # noqa: E402
from bot.i18n import LANGUAGES, translator  # noqa: E402
from bot.inputs import Command, User  # noqa: E402
from bot.platforms import LOCAL  # noqa: E402
from bot.queries import session_id  # noqa: E402
from bot.runtime.analyses import Analyses  # noqa: E402
from bot.service import GameService  # noqa: E402
from bot.session import ChatSession  # noqa: E402
from storage import ChatRef  # noqa: E402
from storage.store import RedisGameStore  # noqa: E402
from tests.web.browser import (  # noqa: E402
    PHONE,
    chromium_path,
    deliver_nowhere,
    is_over,
    launch,
    my_turn,
    play_until_over,
    serving,
    tap_a_legal_move,
)

CHAT = "screens"
RULES = "transfer timer=60"


async def open_lobby(service: GameService, player: User) -> str:
    """A lobby in a local chat, opened by the player; its ref."""
    await service.handle(
        Command(LOCAL, CHAT, player, "newgame", RULES, chat_title="web", is_admin=True, private=True)
    )
    record = await service.store.load(ChatRef(LOCAL, CHAT))
    assert record.state is not None
    return game_ref(CHAT, session_id(ChatSession.decode(record.state)))


async def a_bout_worth_seeing(page: Page, max_moves: int = 60) -> None:
    """Tap legal moves until it is the player's turn with at least two cards on the table and a talon."""
    for _ in range(max_moves):
        await page.wait_for_selector("#app[data-phase=over], .hand.acting")
        if await is_over(page):
            raise SystemExit("the game ended before a bout worth a screenshot: try another --seed")
        pairs = await page.locator(".table-cards .pair").count()
        if pairs >= 2 and await my_turn(page) and await page.locator(".talon-top").count():
            return
        await tap_a_legal_move(page)
    raise SystemExit("no bout worth a screenshot: try another --seed")


async def settled(page: Page) -> None:
    """No toast over the screen: a press's answer lasts a few seconds, longer than a scripted game's moves."""
    await page.wait_for_selector("#toast", state="hidden")


async def shoot(out: Path, seed: int, scheme: Literal["light", "dark"], lang: str) -> None:
    """The four screenshots, named ``webapp-<screen>.png`` (``webapp-<screen>.<lang>.png`` in another
    language than English), with the player and the page in ``lang``."""
    player, tr = User("you", "Ann", lang), translator(lang)
    suffix = "" if lang == "en" else f".{lang}"
    redis = fakeredis.aioredis.FakeRedis(decode_responses=True)
    service = GameService(RedisGameStore(redis), ServiceConfig(ai_delay=0), seed_source=lambda: seed)
    ref = await open_lobby(service, player)
    sessions = LocalSessions(Viewer(LOCAL, player), ref)
    analyses = Analyses(service.store, lambda work, job: asyncio.to_thread(work, job))
    front = WebFrontEnd(service, redis, deliver_nowhere, local=sessions, analyses=analyses)
    out.mkdir(parents=True, exist_ok=True)
    async with serving(front) as base, async_playwright() as playwright:
        browser = await launch(playwright)
        context = await browser.new_context(
            viewport=PHONE, device_scale_factor=2, reduced_motion="reduce", color_scheme=scheme, locale=lang
        )
        page = await context.new_page()
        await page.goto(f"{base}?ref={ref}&lang={lang}#key={sessions.new_key()}")
        await page.wait_for_selector("#app[data-phase=lobby]")
        for _ in range(2):
            players = await page.locator(".players li").count()
            await page.locator(".lobby-card .buttons .btn", has_text=tr._("Add AI")).first.click()
            await page.wait_for_function(f"() => document.querySelectorAll('.players li').length > {players}")
        await settled(page)
        await page.screenshot(path=out / f"webapp-lobby{suffix}.png")
        await page.locator(".lobby-card .buttons .btn", has_text=tr._("Start")).click()
        await page.wait_for_selector("#app[data-phase=play]")
        await a_bout_worth_seeing(page)
        await settled(page)
        await page.screenshot(path=out / f"webapp-table{suffix}.png")
        await play_until_over(page)
        await settled(page)
        await page.screenshot(path=out / f"webapp-result{suffix}.png")
        await page.locator(".replay-link").click()
        await page.click("[data-go='analyse']")
        await page.wait_for_selector(".analysis-chart polyline", timeout=300_000)
        await page.locator(".replay-analysis").scroll_into_view_if_needed()
        await settled(page)
        await page.screenshot(path=out / f"webapp-analysis{suffix}.png")
        await browser.close()
    await redis.aclose()
    for name in ("lobby", "table", "result", "analysis"):
        print(out / f"webapp-{name}{suffix}.png")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--scheme", choices=("light", "dark"), default="light")
    parser.add_argument(
        "--lang", choices=LANGUAGES, default="en", help="the player's and the page's language"
    )
    args = parser.parse_args()
    if chromium_path() is None:
        print("no Chromium: apt-get install chromium", file=sys.stderr)
        return 2
    asyncio.run(shoot(args.out, args.seed, args.scheme, args.lang))
    return 0


if __name__ == "__main__":
    sys.exit(main())
