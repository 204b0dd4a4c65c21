"""The page in a real browser: Debian's Chromium driven by playwright, and the servers it talks to.

Used by tests/web/test_browser.py and scripts/screenshots.py. Chromium is the system's (`apt-get install
chromium`): playwright's own browser downloads cannot run here. Every request the page makes outside
127.0.0.1 is aborted, except Telegram's script, which gets an empty one: no test reaches the internet.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from aiohttp import web
from playwright.async_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    Position,
    Route,
    ViewportSize,
    async_playwright,
)
from playwright.async_api import TimeoutError as PlaywrightTimeout

from adapters.web.local import WebPlayOptions, bound_port, serve_web_game
from adapters.web.server import WebFrontEnd
from bot.effects import Effect
from bot.inputs import User
from bot.service import GameService
from storage.store import RedisGameStore

NO_CHROMIUM = "no Chromium: apt-get install chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE: ViewportSize = {"width": 390, "height": 844}
TELEGRAM_SCRIPT = "https://telegram.org/js/telegram-web-app.js"
WAIT_MS = 10_000  # the longest any single wait may take: an AI move, a round trip
CARD_CORNER: Position = {
    "x": 12,
    "y": 22,
}  # the rank in a card's corner: the part of a fanned card never covered
MOVE_WAIT_MS = 3_000  # after a tap, for the game to move on (else the tap is tried again)
# axe-core, vendored (tests/web/assets/axe-core/README.md): the rules of WCAG 2.0, 2.1 and 2.2, levels A and AA
AXE_CORE = Path(__file__).parent / "assets" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
SERIOUS = ("serious", "critical")


def chromium_path() -> str | None:
    """Debian's Chromium, or None."""
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


async def launch(playwright: Playwright, *extra_args: str) -> Browser:
    executable = chromium_path()
    assert executable is not None, NO_CHROMIUM
    args = [*CHROMIUM_ARGS, *extra_args]
    return await playwright.chromium.launch(executable_path=executable, headless=True, args=args)


@asynccontextmanager
async def headless_chromium(*extra_args: str) -> AsyncIterator[Browser]:
    """A test's browser: Debian's Chromium under playwright, the test skipped where it is not installed."""
    if chromium_path() is None:
        pytest.skip(NO_CHROMIUM)
    async with async_playwright() as playwright:
        chromium = await launch(playwright, *extra_args)
        try:
            yield chromium
        finally:
            await chromium.close()


@asynccontextmanager
async def chromium_blocking_storage_of(
    framed: str, framer: str, *extra_args: str
) -> AsyncIterator[BrowserContext]:
    """A Chromium profile that refuses cookies and storage to ``framed`` (an origin, any port) when it is in
    a frame of ``framer``: what a browser blocking third-party storage does (Chromium's "block third-party
    cookies", Chrome's incognito): ``sessionStorage`` then throws "Access is denied for this document"."""
    if chromium_path() is None:
        pytest.skip(NO_CHROMIUM)
    exceptions = {f"{framed},{framer}": {"setting": 2}}  # 2: block, as Chromium's settings page writes it
    with tempfile.TemporaryDirectory(prefix="chromium-") as profile:
        os.makedirs(os.path.join(profile, "Default"))
        with open(os.path.join(profile, "Default", "Preferences"), "w") as preferences:
            json.dump({"profile": {"content_settings": {"exceptions": {"cookies": exceptions}}}}, preferences)
        async with async_playwright() as playwright:
            context = await playwright.chromium.launch_persistent_context(
                profile,
                executable_path=chromium_path(),
                headless=True,
                args=[*CHROMIUM_ARGS, *extra_args],
                viewport=PHONE,
                reduced_motion="reduce",
            )
            try:
                context.set_default_timeout(WAIT_MS)
                yield context
            finally:
                await context.close()


async def _offline(route: Route) -> None:
    url = route.request.url
    if urlsplit(url).hostname == "127.0.0.1":
        await route.continue_()
    elif url.startswith(TELEGRAM_SCRIPT):
        await route.fulfill(status=200, content_type="application/javascript", body="")
    else:
        await route.abort()


def telegram_stub(init_data: str, user: dict[str, Any], start_param: str, theme: dict[str, str]) -> str:
    """A script that plays Telegram's part before the page loads: ``window.Telegram.WebApp`` with the
    initData Telegram would hand over, and ready()/expand() that note they were called."""
    web_app = {
        "initData": init_data,
        "initDataUnsafe": {"user": user, "start_param": start_param},
        "themeParams": theme,
        "colorScheme": "dark",
        "calls": [],
    }
    return (
        f"window.Telegram = {{WebApp: {json.dumps(web_app)}}};"
        "window.Telegram.WebApp.ready = function () { this.calls.push('ready'); };"
        "window.Telegram.WebApp.expand = function () { this.calls.push('expand'); };"
    )


async def phone_page(browser: Browser, telegram: str | None = None, scale: float = 1) -> Page:
    """A page the size of a phone (390x844), offline but for 127.0.0.1, with ``telegram`` run first."""
    context = await browser.new_context(viewport=PHONE, device_scale_factor=scale, reduced_motion="reduce")
    context.set_default_timeout(WAIT_MS)
    await context.route("**/*", _offline)
    if telegram is not None:
        await context.add_init_script(script=telegram)
    return await context.new_page()


async def replay_page(browser: Browser, user: User, ref: str, token: str) -> Page:
    """A phone-sized page of ``user``'s Telegram opening the replay ``ref`` (its start parameter)."""
    from tests.web.initdata import make_init_data

    init_data = make_init_data(token, int(user.id), user.name, start_param=ref)
    person = {"id": int(user.id), "first_name": user.name, "language_code": user.lang}
    return await phone_page(browser, telegram_stub(init_data, person, ref, {}))


async def axe_violations(page: Page) -> list[dict[str, Any]]:
    """What axe-core finds on the page as it is now, by the WCAG 2.x A and AA rules: each violated rule's id,
    impact, and the first few elements it names."""
    if not await page.evaluate("() => 'axe' in window"):
        await page.add_script_tag(path=str(AXE_CORE))
    found: list[dict[str, Any]] = await page.evaluate(
        """tags => axe.run(document, {runOnly: {type: "tag", values: tags}}).then(result =>
            result.violations.map(v => ({
                id: v.id,
                impact: v.impact,
                nodes: v.nodes.length,
                targets: v.nodes.slice(0, 3).map(node => node.target.join(" ")),
            })))""",
        AXE_TAGS,
    )
    return found


def serious(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [violation for violation in violations if violation["impact"] in SERIOUS]


# ---- playing through the page -----------------------------------------------------------------------


async def shown(page: Page) -> dict[str, str]:
    """The phase, version and step the page shows now (data attributes of #app)."""
    data: dict[str, str] = await page.evaluate("() => ({...document.getElementById('app').dataset})")
    return data


async def is_over(page: Page) -> bool:
    return (await shown(page)).get("phase") == "over"


async def my_turn(page: Page) -> bool:
    return await page.locator(".hand.acting").count() > 0


async def tap_a_legal_move(page: Page) -> None:
    """Tap what a player would: the first card that plays (and its first target when it asks for one),
    else Take or Pass; then wait for the game to move on."""
    before = (await shown(page)).get("step")
    card = page.locator(".fan [data-playable]").first
    if await card.count():
        await card.click(position=CARD_CORNER, timeout=MOVE_WAIT_MS)
        target = page.locator(".pair.target").first
        if await target.count():
            await target.click(timeout=MOVE_WAIT_MS)
    else:
        for kind in ("pass", "take", "transfer"):
            button = page.locator(f".actions [data-kind={kind}]")
            if await button.count():
                await button.first.click(timeout=MOVE_WAIT_MS)
                break
    with contextlib.suppress(PlaywrightTimeout):  # the page was redrawn under the tap: look again
        await page.wait_for_function(
            "step => { const app = document.getElementById('app');"
            " return app.dataset.step !== step || app.dataset.phase === 'over'; }",
            arg=before,
            timeout=MOVE_WAIT_MS,
        )


async def play_until_over(page: Page, max_moves: int = 300) -> int:
    """Play this page's seat against AI seats until the result shows; the number of taps."""
    for moves in range(max_moves):
        await page.wait_for_selector("#app[data-phase=over], .hand.acting")
        if await is_over(page):
            return moves
        await tap_a_legal_move(page)
    raise AssertionError(f"no result after {max_moves} taps")


# ---- servers --------------------------------------------------------------------------------------------


@dataclass
class LocalGame:
    url: str  # as `durak-bot play --web` prints it, with the one-time key


@asynccontextmanager
async def local_game(
    service: GameService, store: RedisGameStore, user: User, options: WebPlayOptions
) -> AsyncIterator[LocalGame]:
    """`durak-bot play --web` as the command runs it (its own server on a free port of 127.0.0.1)."""
    printed: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    out = io.StringIO()
    server = asyncio.create_task(
        serve_web_game(service, store.redis, user, options, out, poll=0.02, opened=printed.set_result)
    )
    try:
        started: list[asyncio.Future[Any]] = [printed, server]
        await asyncio.wait(started, return_when=asyncio.FIRST_COMPLETED)
        if not printed.done():
            raise AssertionError(f"the web game did not start: {out.getvalue()}")
        yield LocalGame(printed.result())
    finally:
        server.cancel()
        await asyncio.gather(server, return_exceptions=True)


async def deliver_nowhere(platform: str, chat_id: str, effects: list[Effect]) -> None:
    """The chat's own messages (the group table, the private hands) are not what these tests look at."""


@asynccontextmanager
async def serving(front: WebFrontEnd, prefix: str = "/") -> AsyncIterator[str]:
    """Serve ``front`` on a free port of 127.0.0.1 (its routes under ``prefix``); the server's base URL."""
    runner = web.AppRunner(front.app(prefix), access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        yield f"http://127.0.0.1:{bound_port(runner, 0)}/"
    finally:
        await runner.cleanup()
