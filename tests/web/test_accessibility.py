"""The page works for everyone (WCAG 2.2 AA), in headless Chromium at phone size.

axe-core (vendored: tests/web/assets/axe-core) over the lobby, a running game, the result, the replay and
the analysis, in the dark and the light theme and in English, Russian and Italian, with nothing serious or
critical; pinch zoom allowed; the focus kept in the hand after a move made with the keyboard; one polite
live region saying what changed; the trump, the talon and the seats named in words from the catalogs; the
analysis offered only where the server can make it; no text that needs an emoji font; the replay opening
at its top; names shown whole where the layout has room for them.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Browser, Page

from adapters.web.local import WebPlayOptions, nothing_to_deliver, open_game
from adapters.web.server import WebFrontEnd
from adapters.web.sessions import LocalSessions, Viewer
from bot.context import ServiceConfig
from bot.inputs import User
from bot.platforms import LOCAL
from bot.runtime.analyses import Analyses
from bot.service import GameService
from storage.store import RedisGameStore
from tests.bot.harness import Harness
from tests.bot.stacked import first_moves_to_the_end, press_move, stacked_game
from tests.web.browser import (
    axe_violations,
    local_game,
    phone_page,
    serious,
    serving,
    telegram_stub,
)
from tests.web.initdata import make_init_data
from tests.web.pages import ANN, BOB, TOKEN, current_ref, front_end, served
from tests.web.test_analysis import Workers

LANGS = ["en", "ru", "it"]
HANDS = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH"]
SHORT = "deck=24 timer=0"
TESS = User("you", "Tess")
# Characters that only an emoji font draws (a box without one): emoji presentation, the supplementary
# planes' pictographs, the emoji variation selector. The suits ♠♥♦♣ are in every text font.
EMOJI = r"/[\p{Emoji_Presentation}\u{FE0F}\u{1F000}-\u{1FAFF}]/u"


async def telegram_page(browser: Browser, user: User, ref: str, lang: str = "en") -> Page:
    """``user``'s Mini App page on ``ref`` in ``lang`` (Telegram's language for them; the chat itself plays
    in English), in Telegram's dark scheme with the page's own colours."""
    init_data = make_init_data(TOKEN, int(user.id), user.name, lang=lang, start_param=ref)
    person = {"id": int(user.id), "first_name": user.name, "language_code": lang}
    return await phone_page(browser, telegram_stub(init_data, person, ref, {}))


async def live(page: Page) -> None:
    """Wait for the page's live socket: its first state drawn, nothing is redrawn under what the test reads."""
    await page.wait_for_selector(".topbar .connection", state="detached")


async def in_both_themes(page: Page, where: str, lang: str, found: dict[str, list[str]]) -> None:
    """axe-core over the page as it is, in the dark and the light theme (as Telegram's themeChanged sets
    it): the serious and critical violations, by rule id and count, under ``where (theme)``; and a page
    without its one h1, or not in ``lang``."""
    headings = await page.locator("h1").count()
    shown_in = await page.evaluate("() => document.documentElement.lang")
    for scheme in ("dark", "light"):
        await page.evaluate("scheme => { document.documentElement.dataset.scheme = scheme; }", scheme)
        violations = serious(await axe_violations(page))
        found[f"{where} ({scheme})"] = [f"{v['id']} x{v['nodes']}: {v['targets']}" for v in violations]
        if headings != 1:  # the page says what it is: one h1 (axe's page-has-heading-one, a best practice)
            found[f"{where} ({scheme})"].append(f"h1 x{headings}")
        if shown_in != lang:
            found[f"{where} ({scheme})"].append(f"lang {shown_in}")


# ---- axe-core over every page ----------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
async def test_axe_finds_nothing_serious_on_any_page_in_either_theme(
    browser: Browser, harness: Harness, fake_redis: Any, lang: str
) -> None:
    found: dict[str, list[str]] = {}
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    ref = await current_ref(harness)
    analyses = Analyses(harness.store, Workers(), batch=50)
    front, _ = front_end(harness, fake_redis, analyses=analyses)
    async with serving(front) as base:
        page = await telegram_page(browser, ANN, ref, lang)
        await page.goto(base)
        await page.wait_for_selector("#app[data-phase=play] .fan [data-playable]")
        await live(page)
        await in_both_themes(page, "game", lang, found)
        await first_moves_to_the_end(harness, (ANN, BOB))
        await page.wait_for_selector("#app[data-phase=over] .replay-link")
        await in_both_themes(page, "result", lang, found)
        await page.click(".replay-link")
        await page.wait_for_selector("#app[data-step='0'] .replay-slider")
        await in_both_themes(page, "replay", lang, found)
        await page.click("[data-go='analyse']")
        await page.wait_for_selector(".analysis-chart polyline", timeout=60_000)
        await in_both_themes(page, "analysis", lang, found)
        await harness.command(ANN, "newgame", SHORT)
        await harness.tap(BOB, "Join")
        lobby = await telegram_page(browser, ANN, await current_ref(harness), lang)
        await lobby.goto(base)
        await lobby.wait_for_selector("#app[data-phase=lobby] .lobby-card .btn")
        await live(lobby)
        await in_both_themes(lobby, "lobby", lang, found)
    failing = {where: rules for where, rules in found.items() if rules}
    assert failing == {}, "serious or critical:\n" + "\n".join(f"{k}: {v}" for k, v in failing.items())
    assert len(found) == 10


# ---- zoom, focus, announcements ------------------------------------------------------------------------


async def test_the_pages_can_be_zoomed(browser: Browser, harness: Harness, fake_redis: Any) -> None:
    """WCAG 1.4.4: neither page turns pinch zoom off (user-scalable=no) nor caps it (maximum-scale)."""
    front, _ = front_end(harness, fake_redis)
    viewports = []
    async with serving(front) as base:
        page = await phone_page(browser)
        for ref in ("-100123_g1", "-100123_g1-replay"):  # the table's page, the replay's page
            await page.goto(f"{base}?ref={ref}")
            viewports.append(await page.get_attribute("meta[name=viewport]", "content"))
    assert len(viewports) == 2
    for viewport in viewports:
        assert viewport is not None and "width=device-width" in viewport
        assert "user-scalable" not in viewport and "maximum-scale" not in viewport, viewport


async def focused(page: Page) -> dict[str, Any]:
    where: dict[str, Any] = await page.evaluate(
        """() => { const el = document.activeElement;
            return {tag: el.tagName, inHand: !!el.closest('.hand'), card: el.dataset.card || null}; }"""
    )
    return where


async def test_after_a_move_made_with_the_keyboard_the_focus_is_still_in_the_hand(
    browser: Browser, fake_redis: Any
) -> None:
    """Keyboard play: Tab to a card (or to Take, Pass), Enter; the page is drawn again, and the focus must
    not fall back to <body> (where the next Tab starts from the top of the page) but stay in the hand."""
    service = GameService(RedisGameStore(fake_redis), ServiceConfig(ai_delay=0), seed_source=lambda: 7)
    options = WebPlayOptions(words=SHORT, players=2, ai="easy", browser=False)
    after: list[dict[str, Any]] = []
    async with local_game(service, service.store, TESS, options) as game:  # type: ignore[arg-type]
        page = await phone_page(browser)
        await page.goto(game.url)
        for _move in range(4):
            await page.wait_for_selector(".hand.acting")
            step = await page.get_attribute("#app", "data-step")
            card = page.locator(".fan [data-playable]")
            await (card.first if await card.count() else page.locator(".actions .btn").first).focus()
            await page.keyboard.press("Enter")
            if await page.locator(".pair.target").count():  # the card beats two: which one
                await page.focus(".pair.target")
                await page.keyboard.press("Enter")
            await page.wait_for_function(
                "step => document.getElementById('app').dataset.step !== step", arg=step
            )
            after.append(await focused(page))
    assert [where["inHand"] for where in after] == [True] * 4, after


async def live_regions(page: Page) -> list[dict[str, Any]]:
    regions: list[dict[str, Any]] = await page.evaluate(
        """() => [...document.querySelectorAll('[aria-live], [role=status], [role=log], [role=alert]')]
            .map(el => ({id: el.id, role: el.getAttribute('role'),
                         live: el.getAttribute('aria-live') || {status: 'polite', log: 'polite',
                                                                 alert: 'assertive'}[el.getAttribute('role')],
                         text: el.textContent}))"""
    )
    return regions


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_one_polite_announcement_says_the_opponents_move_and_that_it_is_your_turn(
    browser: Browser, harness: Harness, fake_redis: Any, lang: str
) -> None:
    """The app is drawn again on every change, so it cannot be the live region itself (a screen reader
    would read the whole table at every card); one polite region outside it says what changed."""
    await stacked_game(harness, (BOB, ANN), HANDS, trump="AD")  # Bob opens the bout
    ref = await current_ref(harness)
    front, _ = front_end(harness, fake_redis)
    async with serving(front) as base:
        page = await telegram_page(browser, ANN, ref, lang)
        await page.goto(base)
        await page.wait_for_selector("#app[data-phase=play]")
        await live(page)  # before Bob's move: what the page says is about that move only
        app_live = await page.get_attribute("#app", "aria-live")
        await press_move(harness, BOB, "a:9S")  # from the chat: Ann's page hears of it live
        await page.wait_for_selector(".hand.acting")
        await page.wait_for_function(
            "() => [...document.querySelectorAll('[role=status]')].some(el => el.textContent.trim())"
        )
        regions = await live_regions(page)
        status = await page.inner_text(".status-text")
    polite = [region for region in regions if region["live"] == "polite"]
    assert app_live is None
    assert len(polite) == 1, regions
    played = {"en": "Bob played 9♠", "ru": "Bob ходит 9♠"}[lang]
    assert polite[0]["text"] == f"{played}. {status}"
    assert status.startswith({"en": "Your move", "ru": "Ваш ход"}[lang])


# ---- names in words ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "trump", "talon", "held", "six"),
    [
        ("en", "Trump: ace of diamonds", "Cards in the talon: 24", "Cards in hand: 6", "6 of spades"),
        ("ru", "Козырь: туз бубен", "Карт в колоде: 24", "Карт на руке: 6", "6 пик"),
        ("it", "Briscola: asso di quadri", "Carte nel tallone: 24", "Carte in mano: 6", "6 di picche"),
    ],
)
async def test_the_trump_the_talon_the_seats_and_the_cards_read_as_words(
    browser: Browser,
    harness: Harness,
    fake_redis: Any,
    lang: str,
    trump: str,
    talon: str,
    held: str,
    six: str,
) -> None:
    """What a screen reader says for the deck, a seat and a card of the hand: words from the catalogs, not
    the symbols drawn ("A ♦ ♦ A ♦ 24")."""
    await stacked_game(harness, (ANN, BOB), HANDS, trump="AD")
    ref = await current_ref(harness)
    front, _ = front_end(harness, fake_redis)
    async with serving(front) as base:
        page = await telegram_page(browser, ANN, ref, lang)
        await page.goto(base)
        await page.wait_for_selector("#app[data-phase=play] .fan [data-playable]")
        await live(page)
        deck = await page.locator(".deck").aria_snapshot()
        seats = await page.locator(".seats").aria_snapshot()
        named = page.get_by_role("button", name=six, exact=True)
        cards = await named.evaluate_all("buttons => buttons.map(b => b.dataset.card)")
    assert trump in deck and talon in deck, deck
    assert not any(suit in deck for suit in "♠♥♦♣"), deck
    assert "Bob" in seats and held in seats, seats
    assert cards == ["6S"]  # the hand's 6♠, a button named in words


# ---- what the page offers, and how it looks ------------------------------------------------------------


async def finished_local_game(
    fake_redis: Any, players: int = 2
) -> tuple[WebFrontEnd, LocalSessions, dict[str, Any]]:
    """`durak-bot play --web`'s front end (no AI workers: no analysis) with a game of Tess against easy AI
    seats played to its end through the API; the last state."""
    service = GameService(RedisGameStore(fake_redis), ServiceConfig(ai_delay=0), seed_source=lambda: 7)
    ref = await open_game(service, TESS, WebPlayOptions(words=SHORT, ai="easy", players=players))
    sessions = LocalSessions(Viewer(LOCAL, TESS), ref)
    front = WebFrontEnd(service, fake_redis, nothing_to_deliver, local=sessions)
    headers = {"Authorization": f"session {sessions.redeem(sessions.new_key())}"}
    async with served(front) as client:
        state = await (await client.get("/api/state", params={"ref": ref}, headers=headers)).json()
        for _move in range(200):
            if state["phase"] == "over":
                break
            pressed = {"payload": state["actions"][0]["payload"]}
            state = (await (await client.post("/api/press", json=pressed, headers=headers)).json())["state"]
    assert state["phase"] == "over"
    return front, sessions, state


async def test_the_analysis_is_not_offered_where_it_is_not_available(
    browser: Browser, fake_redis: Any
) -> None:
    """Under `durak-bot play --web` there are no AI workers: GET api/analysis answers 503, so the replay
    must not offer a button that can only fail."""
    front, sessions, state = await finished_local_game(fake_redis)
    assert front.analyses is None
    async with serving(front) as base:
        page = await phone_page(browser)
        await page.goto(f"{base}?ref={state['replay']}#key={sessions.new_key()}")
        await page.wait_for_selector("#app[data-step='0'] .replay-slider")
        offered = await page.locator("[data-go='analyse']").count()
    assert offered == 0


async def emoji_shown(page: Page) -> list[str]:
    """Every text the page draws (text nodes, ::before and ::after) holding a character of ``EMOJI``."""
    found: list[str] = await page.evaluate(
        f"""() => {{
            const emoji = {EMOJI};
            const texts = [];
            const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
            while (walker.nextNode()) texts.push(walker.currentNode.data);
            for (const el of document.body.querySelectorAll('*')) {{
                for (const pseudo of ['::before', '::after']) texts.push(getComputedStyle(el, pseudo).content);
            }}
            return texts.filter(text => emoji.test(text));
        }}"""
    )
    return found


async def test_no_text_needs_an_emoji_font(browser: Browser, fake_redis: Any) -> None:
    """Without an emoji font (a Linux desktop, an older phone) 🤖 is an empty box: the AI seats in the
    result and the replay, and the replay's roles, must read without one."""
    front, sessions, state = await finished_local_game(fake_redis)
    assert any("🤖" in line for line in state["result"]["lines"])  # the server's words hold the robot
    async with serving(front) as base:
        page = await phone_page(browser)
        await page.goto(f"{base}?ref={state['ref']}#key={sessions.new_key()}")
        await page.wait_for_selector("#app[data-phase=over] .result-card")
        result = await emoji_shown(page)
        result_text = await page.inner_text(".result-card")
        await page.click(".replay-link")
        await page.wait_for_selector("#app[data-step='0'] .replay-slider")
        await page.keyboard.press("End")
        await page.wait_for_selector(".replay-result")
        replay = await emoji_shown(page)
        robots = await page.locator(".replay-seat svg.robot").count()
    assert result == [] and replay == []
    assert "AI 1" in result_text  # the name itself is still there
    assert robots == 1  # drawn as a picture, for the AI seat only


async def test_the_replay_opens_at_its_top(browser: Browser, fake_redis: Any) -> None:
    """The move list is at the bottom of the page: showing its current move must not scroll the page."""
    front, sessions, state = await finished_local_game(fake_redis, players=3)
    async with serving(front) as base:
        page = await phone_page(browser)
        await page.goto(f"{base}?ref={state['replay']}#key={sessions.new_key()}")
        await page.wait_for_selector("#app[data-step='0'] .replay-slider")
        opened_at = await page.evaluate("() => window.scrollY")
        await page.keyboard.press("End")  # the move list follows the slider, inside its own box
        await page.wait_for_selector(".replay-result")
        list_box = await page.evaluate(
            """() => { const list = document.querySelector('.replay-moves');
                const current = list.querySelector('li.current').getBoundingClientRect();
                const box = list.getBoundingClientRect();
                return {inside: current.top >= box.top - 1 && current.bottom <= box.bottom + 1,
                        scrolled: list.scrollTop > 0}; }"""
        )
        after_end = await page.evaluate("() => window.scrollY")
    assert opened_at == 0
    assert after_end == 0 and list_box == {"inside": True, "scrolled": True}


async def cut_names(page: Page) -> list[str]:
    """The names shown cut short (with an ellipsis): wider than their box."""
    names: list[str] = await page.evaluate(
        """() => [...document.querySelectorAll('.seat-name, .hand-head .me, .players .name, .final-seats .name')]
            .filter(el => el.scrollWidth > el.clientWidth + 1).map(el => el.textContent)"""
    )
    return names


async def test_names_are_shown_whole_where_there_is_room(
    browser: Browser, harness: Harness, fake_redis: Any
) -> None:
    """At 390x844 a long-ish name fits the row of seats and the replay's row: it is not cut at some fixed
    width; a name longer than the screen is cut with an ellipsis, its seat still on the screen."""
    alexandra, bob = User("101", "Alexandra Konstantinova"), User("102", "Bob")
    endless = User("103", "Maximilian Alexander Konstantin Friedrich von Hohenzollern-Sigmaringen")
    hands = ["6S 7S 8S 9S TS JS", "6H 7H 8H 9H TH JH", "6C 7C 8C 9C TC JC"]
    await stacked_game(harness, (alexandra, bob, endless), hands, trump="AD")
    ref = await current_ref(harness)
    front, _ = front_end(harness, fake_redis)
    async with serving(front) as base:
        page = await telegram_page(browser, bob, ref)
        await page.goto(base)
        await page.wait_for_selector("#app[data-phase=play]")
        await live(page)
        in_game = await cut_names(page)
        right = await page.evaluate(
            "() => Math.max(...[...document.querySelectorAll('.seat')].map(s => s.getBoundingClientRect().right))"
        )
        await first_moves_to_the_end(harness, (alexandra, bob, endless))
        await page.wait_for_selector("#app[data-phase=over] .replay-link")
        await page.click(".replay-link")
        await page.wait_for_selector("#app[data-step='0'] .replay-slider")
        in_replay = await cut_names(page)
    assert in_game == [endless.name] and right <= 390
    assert in_replay == [endless.name]
