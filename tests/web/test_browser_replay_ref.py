"""Which game the page asks for, in a real browser (issue 27, point 5), when Telegram opened it from a link
of the group (its start parameter names the lobby or the game, and stays in Telegram's launch data on every
page the app goes to):

- the result screen's Replay opens the replay of the game that just ended, for a player (not "not in the
  archive"); someone who did not play is offered no Replay, and a replay link forwarded to them says it is
  for its players;
- someone not seated who opened the lobby's link is told, once the game starts, that it started without
  them, and the page's Watch button shows them the public table.

Telegram's ``window.Telegram.WebApp`` is played by a script that runs before every page (as Telegram's own
script would read the launch data again after a navigation). Skipped without Chromium.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, Page

from adapters.web.links import REPLAY_MARK
from adapters.web.server import WebFrontEnd
from bot.i18n import translator
from bot.inputs import User
from tests.bot.harness import Harness
from tests.bot.stacked import first_moves_to_the_end
from tests.web.browser import deliver_nowhere, phone_page, serving, telegram_stub
from tests.web.initdata import make_init_data
from tests.web.pages import ANN, BOB, EVE, current_ref

TOKEN = "7012345678:AAHq3xYzW9-the_replay_ref_tests_bot_token"
WORDS = "deck=24 timer=0"  # a short game without a clock: nothing here waits for time


def front(harness: Harness, fake_redis: Any) -> WebFrontEnd:
    return WebFrontEnd(harness.service, fake_redis, deliver_nowhere, telegram_token=TOKEN)


async def opened_from_a_link(browser: Browser, base: str, user: User, start_param: str) -> Page:
    """``user``'s app as Telegram opens it from a group's ``startapp=<start_param>`` link: the start
    parameter in the address and in the signed launch data."""
    init_data = make_init_data(TOKEN, int(user.id), user.name, start_param=start_param)
    person = {"id": int(user.id), "first_name": user.name, "language_code": user.lang}
    page = await phone_page(browser, telegram_stub(init_data, person, start_param, {}))
    await page.goto(f"{base}?tgWebAppStartParam={start_param}")
    return page


async def lobby_of_ann_and_bob(harness: Harness) -> str:
    """Ann's lobby with Bob seated; its ref, as the lobby's "Open table" link carries it."""
    await harness.command(ANN, "newgame", WORDS)
    await harness.tap(BOB, "Join")
    return await current_ref(harness)


async def replay_from_the_result_screen(page: Page) -> None:
    await page.wait_for_selector("#app[data-phase=over] .replay-link")
    await page.click(".replay-link")
    await page.wait_for_selector(".replay-slider, .message-text")


async def test_a_player_who_opened_the_app_from_the_lobbys_link_watches_the_replay_from_the_result_screen(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    lobby = await lobby_of_ann_and_bob(harness)
    await harness.tap(ANN, "Start")
    await first_moves_to_the_end(harness, (ANN, BOB))
    async with serving(front(harness, fake_redis)) as base:
        page = await opened_from_a_link(browser, base, ANN, lobby)
        await replay_from_the_result_screen(page)
        message = await page.locator(".message-text").all_inner_texts()
        players = await page.locator(".replay-seat .seat-name").all_inner_texts()
        step = await page.get_attribute("#app", "data-step")
    assert message == []
    assert players == ["Ann", "Bob"] and step == "0"


async def test_someone_who_did_not_play_sees_no_replay_button_and_a_forwarded_replay_link_is_for_the_players(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    await lobby_of_ann_and_bob(harness)
    await harness.tap(ANN, "Start")
    game = await current_ref(harness)  # the table's "Open table" link
    await first_moves_to_the_end(harness, (ANN, BOB))
    async with serving(front(harness, fake_redis)) as base:
        page = await opened_from_a_link(browser, base, EVE, game)
        await page.wait_for_selector("#app[data-phase=over]")
        offered = await page.locator(".replay-link").count()
        forwarded = await opened_from_a_link(browser, base, EVE, game + REPLAY_MARK)  # a player's replay link
        await forwarded.wait_for_selector(".replay-slider, .message-text")
        message = await forwarded.inner_text(".message-text")
    assert offered == 0
    assert message == translator("en")._("Only the players of this game can watch its replay.")


async def test_someone_not_seated_with_the_lobbys_link_is_offered_to_watch_once_the_game_starts(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    lobby = await lobby_of_ann_and_bob(harness)
    async with serving(front(harness, fake_redis)) as base:
        page = await opened_from_a_link(browser, base, EVE, lobby)
        await page.wait_for_selector("#app[data-phase=lobby]")
        await harness.tap(ANN, "Start")  # while Eve looks at the lobby
        await page.wait_for_selector("#app[data-phase=started] .watch-link")
        said = await page.inner_text(".message-text")
        await page.click(".watch-link")
        await page.wait_for_selector("#app[data-phase=play]")
        hands = await page.locator(".fan .card").count()
        seats = await page.locator(".seat-name").all_inner_texts()
    assert said == translator("en")._("The game has started without you. You can watch it.")
    assert hands == 0  # a spectator: the public table, no hand
    assert seats == ["Ann", "Bob"]
