"""The page in a real browser (headless Chromium, phone-sized): played by tapping, as a person would.

A whole game against an AI seat through `durak-bot play --web`'s own server; a lobby's buttons; the page
under WEBAPP_URL's path; two people playing each other through the Telegram flow (their initData signed with
the test token, Telegram's ``window.Telegram.WebApp`` played by a script that runs before the page, or only
the launch data in the URL when Telegram's script does not load); a card that beats two attack cards asking
which; Swap for the holder of the lowest trump only; a spectator's public table; a refused move's reason;
Telegram's theme colours; Russian labels. Every game is short and seeded or stacked, and every wait is for something on the page,
never for time. Skipped, with the reason, where no Chromium is installed (`.ci/run` installs it).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from playwright.async_api import Browser, Page

from adapters.web.links import game_ref
from adapters.web.local import CHAT_ID, WebPlayOptions
from adapters.web.server import WebFrontEnd
from adapters.web.sessions import LocalSessions, Viewer
from adapters.web.strings import page_strings
from bot.context import ServiceConfig
from bot.i18n import translator
from bot.inputs import Command, User
from bot.platforms import LOCAL
from bot.queries import session_id
from bot.service import GameService
from bot.session import ChatSession
from storage import ChatRef
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import press_move, stacked_game
from tests.web.browser import (
    CARD_CORNER,
    TELEGRAM_SCRIPT,
    deliver_nowhere,
    is_over,
    local_game,
    my_turn,
    phone_page,
    play_until_over,
    serving,
    shown,
    tap_a_legal_move,
    telegram_stub,
)
from tests.web.initdata import make_init_data
from tests.web.pages import ANN, BOB, EVE, current_ref

TOKEN = "7012345678:AAHq3xYzW9-the_browser_tests_bot_token_01"
HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]
SHORT = "deck=24 timer=0"  # short games, no clock: nothing here waits for time to pass
THEME = {
    "bg_color": "#1b2a3a",
    "text_color": "#f5f5f5",
    "hint_color": "#9aa5b1",
    "button_color": "#e8590c",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#243447",
}
PLAYER = User("you", "Tess", "en")


def local_service(fake_redis: Any, seed: int = 7) -> GameService:
    """The service `durak-bot play` builds, with AI seats that move at once."""
    return GameService(RedisGameStore(fake_redis), ServiceConfig(ai_delay=0), seed_source=lambda: seed)


async def telegram_page(browser: Browser, user: User, ref: str, lang: str = "en") -> Page:
    """``user``'s Mini App page on the chat's game, opened from the group's "Open table" link."""
    init_data = make_init_data(TOKEN, int(user.id), user.name, lang=lang, start_param=ref)
    person = {"id": int(user.id), "first_name": user.name, "language_code": lang}
    return await phone_page(browser, telegram_stub(init_data, person, ref, THEME))


def telegram_front(harness: Harness, fake_redis: Any) -> WebFrontEnd:
    return WebFrontEnd(harness.service, fake_redis, deliver_nowhere, telegram_token=TOKEN)


async def result_lines(page: Page) -> list[str]:
    """The result as the page shows it: the headline, then the places."""
    return await page.locator(".result-card .headline, .result-lines li").all_inner_texts()


# ---- play --------------------------------------------------------------------------------------------


async def test_a_whole_game_against_an_ai_is_played_by_tapping_legal_moves_then_replayed(
    browser: Browser, fake_redis: Any
) -> None:
    service = local_service(fake_redis)
    options = WebPlayOptions(words=SHORT, players=2, ai="easy", browser=False)
    async with local_game(service, service.store, PLAYER, options) as game:  # type: ignore[arg-type]
        page = await phone_page(browser)
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        await page.goto(game.url)
        await page.wait_for_selector(".hand .fan .card")
        assert "#key=" not in page.url  # the one-time key left the address bar
        taps = await play_until_over(page)
        lines = await result_lines(page)
        buttons = await page.locator(".result-card .buttons .btn").all_inner_texts()
        await page.click(".replay-link")  # the finished game, step by step, with the same session
        await page.wait_for_selector("#app[data-step='0'] .replay-slider")
    assert taps > 0
    assert lines and ("durak" in lines[0] or "draw" in lines[0])
    assert buttons == ["Rematch"]
    assert [url for url in asked if not url.startswith("http://127.0.0.1:")] == []  # nothing from outside


async def local_lobby(service: GameService) -> str:
    """A lobby opened by the player in the browser game's chat; its ref."""
    opened = Command(
        LOCAL, CHAT_ID, PLAYER, "newgame", SHORT, chat_title="browser", is_admin=True, private=True
    )
    await service.handle(opened)
    record = await service.store.load(ChatRef(LOCAL, CHAT_ID))
    assert record.state is not None
    return game_ref(CHAT_ID, session_id(ChatSession.decode(record.state)))


async def test_the_lobby_shows_its_players_and_its_buttons_start_the_game(
    browser: Browser, fake_redis: Any
) -> None:
    service = local_service(fake_redis)
    ref = await local_lobby(service)
    sessions = LocalSessions(Viewer(LOCAL, PLAYER), ref)
    front = WebFrontEnd(service, fake_redis, deliver_nowhere, local=sessions)
    async with serving(front) as base:
        page = await phone_page(browser)
        await page.goto(f"{base}?ref={ref}#key={sessions.new_key()}")
        await page.wait_for_selector("#app[data-phase=lobby]")
        assert await page.locator(".players li").all_inner_texts() == ["T\nTess"]
        labels = await page.locator(".lobby-card .buttons .btn").all_inner_texts()
        assert "Start" in labels and any(label.startswith("🤖") or "AI" in label for label in labels)
        await page.locator(".lobby-card .buttons .btn", has_text="AI").first.click()
        await page.wait_for_function("() => document.querySelectorAll('.players li').length === 2")
        await page.locator(".lobby-card .buttons .btn", has_text="Start").click()
        await page.wait_for_selector("#app[data-phase=play]")
        hand = await page.locator(".hand .fan .card").count()
        seats = await page.locator(".seats .seat").count()
    assert hand == 6 and seats == 1


async def test_the_page_works_under_a_path_without_its_trailing_slash(
    browser: Browser, fake_redis: Any
) -> None:
    """WEBAPP_URL may be https://host/durak: the page's files, API and live socket are under /durak/."""
    service = local_service(fake_redis)
    ref = await local_lobby(service)
    sessions = LocalSessions(Viewer(LOCAL, PLAYER), ref)
    front = WebFrontEnd(service, fake_redis, deliver_nowhere, local=sessions)
    async with serving(front, prefix="/durak") as base:
        page = await phone_page(browser)
        await page.goto(f"{base}durak?ref={ref}#key={sessions.new_key()}")
        await page.wait_for_selector("#app[data-phase=lobby]")
        await page.wait_for_selector(".topbar .connection", state="detached")  # the live socket is up
        players = await page.locator(".players li").count()
    assert players == 1


async def test_two_people_play_each_other_through_telegram(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    await harness.command(ANN, "newgame", SHORT)
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")
    ref = await current_ref(harness)
    async with serving(telegram_front(harness, fake_redis)) as base:
        pages = [await telegram_page(browser, ANN, ref), await telegram_page(browser, BOB, ref)]
        for page in pages:
            await page.goto(base)
            await page.wait_for_selector("#app[data-phase=play]")
        assert [await p.locator(".hand-head .me").inner_text() for p in pages] == ["Ann", "Bob"]
        moves = await play_in_turns(pages)
        results = [await result_lines(page) for page in pages]
        calls = [await page.evaluate("() => window.Telegram.WebApp.calls") for page in pages]
    assert moves > 4
    assert results[0] == results[1] and results[0]
    assert calls == [["ready", "expand"]] * 2


async def play_in_turns(pages: list[Page], max_moves: int = 300) -> int:
    """Both pages follow the game (each by its own live socket); whoever's turn it is taps a legal move."""
    leader = pages[0]
    for moves in range(max_moves):
        if await is_over(leader):
            for page in pages:
                await page.wait_for_selector("#app[data-phase=over]")
            return moves
        step = int((await shown(leader))["step"])
        for page in pages:  # every page has seen the last move
            await page.wait_for_function(
                "step => { const app = document.getElementById('app');"
                " return Number(app.dataset.step) >= step || app.dataset.phase === 'over'; }",
                arg=step,
            )
        acting = [page for page in pages if await my_turn(page)]
        if not acting:
            continue
        assert len(acting) == 1, "two pages both show it is their turn"
        leader = acting[0]
        await tap_a_legal_move(leader)
    raise AssertionError(f"no result after {max_moves} moves")


async def test_inside_telegram_the_page_loads_telegrams_script_and_signs_in_from_the_launch_data(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    """Telegram opens the page with its launch data in the fragment; the page then asks for Telegram's
    script (here it answers empty, as a blocked one would) and still signs in from the launch data."""
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    ref = await current_ref(harness)
    init_data = make_init_data(TOKEN, int(BOB.id), BOB.name, start_param=ref)
    launch = urlencode({"tgWebAppData": init_data, "tgWebAppThemeParams": json.dumps(THEME)})
    async with serving(telegram_front(harness, fake_redis)) as base:
        page = await phone_page(browser)
        asked: list[str] = []
        page.on("request", lambda request: asked.append(request.url))
        await page.goto(f"{base}#{launch}&tgWebAppVersion=7.0&tgWebAppPlatform=android")
        await page.wait_for_selector("#app[data-phase=play]")
        me = await page.inner_text(".hand-head .me")
        hand = await page.locator(".fan .card").evaluate_all("cards => cards.map(c => c.dataset.card)")
        background = await page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    assert TELEGRAM_SCRIPT in asked
    assert me == "Bob" and sorted(hand) == sorted(HANDS[1].split())
    assert background == "rgb(27, 42, 58)"


# ---- what the page shows ---------------------------------------------------------------------------------


async def test_a_refused_move_shows_its_reason(browser: Browser, harness: Harness, fake_redis: Any) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    ref = await current_ref(harness)
    async with serving(telegram_front(harness, fake_redis)) as base:
        page = await telegram_page(browser, ANN, ref)
        await page.route_web_socket("**/api/ws", lambda socket: None)  # this page hears of no change
        await page.goto(base)
        await page.wait_for_selector(".fan [data-card='6S'][data-playable]")
        await press_move(harness, ANN, "a:6S")  # Ann attacks from the chat's hand message instead
        async with page.expect_response("**/api/press") as pressed:
            await page.click(".fan [data-card='6S']", position=CARD_CORNER)
        answer = await (await pressed.value).json()
        await page.wait_for_selector("#toast:not([hidden])")
        toast = await page.inner_text("#toast")
        on_table = await page.locator(".table-cards .pair [data-card='6S']").count()
    assert answer["ok"] is False and answer["reason"]
    assert toast == answer["reason"]
    assert on_table == 1  # the page now shows the game as it is


async def test_a_card_that_beats_two_attack_cards_asks_which_one(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    """Bob passes Ann's 6♠ back with his 6♥; Ann's trump 7♦ beats either: she taps it, then the 6♥."""
    hands = ["6S 7D 8S 9S TS JS", "6H 7H 8H 9H TH JH"]
    await stacked_game(harness, (ANN, BOB), hands, trump="AD", words="transfer")
    ref = await current_ref(harness)
    async with serving(telegram_front(harness, fake_redis)) as base:
        page = await telegram_page(browser, ANN, ref)
        await page.goto(base)
        await page.wait_for_selector("#app[data-phase=play]")
        await press_move(harness, ANN, "a:6S")
        await press_move(harness, BOB, "x:6H")  # both from the chat: the page hears of them live
        await page.wait_for_selector(".hand.acting .fan [data-card='7D'][data-playable]")
        await page.click(".fan [data-card='7D']", position=CARD_CORNER)
        targets = await page.locator(".pair.target").evaluate_all("pairs => pairs.map(p => p.dataset.index)")
        await page.click(".pair.target[data-index='1']")
        await page.wait_for_selector(".pair[data-index='1'] .cover[data-card='7D']")
        table = await page.locator(".pair").evaluate_all(
            "pairs => pairs.map(p => [...p.querySelectorAll('.card')].map(c => c.dataset.card))"
        )
    assert targets == ["0", "1"]
    assert table == [["6S"], ["6H", "7D"]]


async def test_swap_is_offered_to_the_holder_of_the_lowest_trump_and_swaps(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    hands = ["6D 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]
    await stacked_game(harness, (ANN, BOB), hands, trump="AD", words="exchange")
    ref = await current_ref(harness)
    async with serving(telegram_front(harness, fake_redis)) as base:
        ann, bob = await telegram_page(browser, ANN, ref), await telegram_page(browser, BOB, ref)
        for page in (ann, bob):
            await page.goto(base)
            await page.wait_for_selector("#app[data-phase=play]")
        offered = [await page.locator(".actions [data-kind=swap]").count() for page in (ann, bob)]
        label = await ann.inner_text(".actions [data-kind=swap]")
        await ann.click(".actions [data-kind=swap]")
        await ann.wait_for_selector(".fan [data-card='AD']")
        await bob.wait_for_selector(".talon .trump-card[data-card='6D']")  # Bob's page sees it live
    assert offered == [1, 0]
    assert label == "Swap for A♦"


async def test_a_spectator_sees_the_public_table_and_no_hand(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    await press_move(harness, ANN, "a:6S")
    ref = await current_ref(harness)
    async with serving(telegram_front(harness, fake_redis)) as base:
        page = await telegram_page(browser, EVE, ref)
        await page.goto(base)
        await page.wait_for_selector("#app[data-phase=play]")
        seats = await page.locator(".seats .seat-name").all_inner_texts()
        table = await page.locator(".table-cards .card").evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
        hand = await page.locator(".hand .card").count()
        buttons = await page.locator(".actions .btn").count()
        watching = await page.inner_text(".hand.spectator")
    assert seats == ["Ann", "Bob"] and table == ["6S"]
    assert hand == 0 and buttons == 0
    assert watching == "You are watching this game"


async def test_the_page_takes_telegrams_theme_colours(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    ref = await current_ref(harness)
    async with serving(telegram_front(harness, fake_redis)) as base:
        page = await telegram_page(browser, ANN, ref)
        await page.goto(base)
        await page.wait_for_selector("#app[data-phase=play]")
        colours = await page.evaluate(
            """() => ({
                button: getComputedStyle(document.documentElement).getPropertyValue('--button').trim(),
                page: getComputedStyle(document.body).backgroundColor,
                turn: getComputedStyle(document.querySelector('.your-turn')).backgroundColor,
                scheme: document.documentElement.dataset.scheme,
            })"""
        )
    assert colours == {
        "button": THEME["button_color"],
        "page": "rgb(27, 42, 58)",
        "turn": "rgb(232, 89, 12)",
        "scheme": "dark",
    }


async def test_the_page_speaks_russian_when_the_game_does(browser: Browser, fake_redis: Any) -> None:
    service = local_service(fake_redis)
    options = WebPlayOptions(words=SHORT, players=2, ai="easy", lang="ru", browser=False)
    russian = page_strings(translator("ru"))
    async with local_game(service, service.store, User("you", "Таня", "ru"), options) as game:  # type: ignore[arg-type]
        page = await phone_page(browser)
        await page.goto(game.url)
        await page.wait_for_selector(".hand .fan .card")
        await page.wait_for_function("() => document.documentElement.lang === 'ru'")
        role = await page.inner_text(".hand-head .role")
        talon = await page.get_attribute(".talon", "title")
        turn = await page.inner_text(".your-turn")  # the AI has moved at once: it is the player's turn
    assert role in {russian["attacker"], russian["defender"]}
    assert talon == russian["Talon"] != "Talon"
    assert turn == russian["Your turn"] != "Your turn"
