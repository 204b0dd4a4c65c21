"""The Activity in a real browser: Discord's client is a parent page at https://discord.com (served by the
test) that frames our page with the query parameters Discord adds (frame_id, instance_id, platform,
channel_id, guild_id) and plays the client's side of the Embedded App SDK's postMessage protocol, as the
SDK's source (src/Discord.ts, 2.5.0) expects it: the HANDSHAKE (opcode 0) answered by a FRAME (opcode 1)
DISPATCH of READY, then AUTHORIZE answered with a code from the fake OAuth2 server and AUTHENTICATE with the
user. Three people play a whole game in three browser contexts, no page is ever sent a card of another's
hand, and a forged or replayed code signs nobody in. Skipped, with the reason, without Chromium."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, cast
from urllib.parse import urlencode, urlsplit

import pytest
from playwright.async_api import Browser, BrowserContext, Frame, Page, Route

from bot.inputs import User
from tests.bot.harness import Harness
from tests.fakes.discord_oauth import FakeDiscordOAuth
from tests.fakes.local_server import on_loopback
from tests.web.activity import CHANNEL, CLIENT_ID, GUILD, activity_pages, channel_harness, discord_side
from tests.web.browser import PHONE, WAIT_MS, chromium_blocking_storage_of, headless_chromium
from tests.web.pages import ANN, BOB, CAT, EVE
from tests.web.test_browser import play_in_turns, result_lines

SHORT = "deck=24 timer=0"
DISCORD_CLIENT = "https://discord.com/activities/durak"
# The test's "Discord client" is a public https origin framing a page on 127.0.0.1; Chromium refuses that
# (local network access) unless told otherwise. Discord's real frame is on the public discordsays.com host.
LOCAL_FRAMES = "--disable-features=BlockInsecurePrivateNetworkRequests,LocalNetworkAccessChecks"
CARD = re.compile(r"\b(?:[6-9TJQKA]|10)[SHDC]\b")

# The Discord client's side of the SDK's protocol, for one person: placeholders filled by `client_page`.
CLIENT_SCRIPT = """
const frame = document.getElementById("activity");
window.discordCalls = [];
const reply = (message) => frame.contentWindow.postMessage(message, "*");
window.addEventListener("message", (event) => {
  if (event.source !== frame.contentWindow || !Array.isArray(event.data)) return;
  const [opcode, payload] = event.data;
  if (opcode === 0) {  // HANDSHAKE: {v, encoding, client_id, frame_id, sdk_version}
    window.discordCalls.push(["HANDSHAKE", payload.client_id, payload.frame_id]);
    reply([1, {cmd: "DISPATCH", evt: "READY", nonce: null, data: {
      v: 1, config: {cdn_host: "cdn.discordapp.com", api_endpoint: "//discord.com/api", environment: "production"},
      user: {id: USER.id, username: USER.username, discriminator: "0"}}}]);
    return;
  }
  if (opcode !== 1) return;
  window.discordCalls.push([payload.cmd, payload.args]);
  if (payload.cmd === "AUTHORIZE") {
    reply([1, {cmd: "AUTHORIZE", evt: null, nonce: payload.nonce, data: {code: CODE}}]);
  } else if (payload.cmd === "AUTHENTICATE") {
    reply([1, {cmd: "AUTHENTICATE", evt: null, nonce: payload.nonce, data: {
      access_token: payload.args.access_token,
      user: {id: USER.id, username: USER.username, discriminator: "0", avatar: null, public_flags: 0, global_name: USER.name},
      scopes: ["identify"], expires: "2030-01-01T00:00:00.000Z",
      application: {id: CLIENT_ID, name: "Durak", description: ""}}}]);
  } else {
    reply([1, {cmd: payload.cmd, evt: "ERROR", nonce: payload.nonce, data: {code: 4002, message: "not played here"}}]);
  }
});
"""


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with headless_chromium(LOCAL_FRAMES) as chromium:
        yield chromium


@asynccontextmanager
async def activity_server(harness: Harness, redis: Any, fake: FakeDiscordOAuth) -> AsyncIterator[str]:
    pages, _ = activity_pages(harness, redis, fake)
    async with on_loopback(pages.app()) as base:
        yield base


def client_page(base: str, user: User, code: str, instance_id: str) -> str:
    """Discord's client for ``user``: our page in an iframe, as Discord opens an Activity."""
    query = urlencode(
        {
            "instance_id": instance_id,
            "frame_id": f"frame-{user.id}",
            "platform": "desktop",
            "channel_id": CHANNEL,
            "guild_id": GUILD,
            "location_id": f"gc-{GUILD}-{CHANNEL}",
        }
    )
    person = {"id": user.id, "username": user.name.lower(), "name": user.name}
    script = (
        f"const USER = {json.dumps(person)}; const CODE = {json.dumps(code)}; "
        f"const CLIENT_ID = {json.dumps(CLIENT_ID)};" + CLIENT_SCRIPT
    )
    return (
        "<!doctype html><html><head><title>Discord</title><style>body{margin:0;background:#313338}"
        "iframe{border:0;width:100vw;height:100vh}</style></head><body>"
        f'<iframe id="activity" src="{base}?{query}"></iframe><script>{script}</script></body></html>'
    )


class Opened:
    """One person's Discord client with the Activity open, and every state our server sent their page."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.states: list[dict[str, Any]] = []

    @property
    def frame(self) -> Frame:
        frame = self.page.frame(url=re.compile(r"^http://127\.0\.0\.1"))
        assert frame is not None, "the Activity's frame is not there"
        return frame


async def open_activity(browser: Browser, base: str, user: User, code: str, instance_id: str) -> Opened:
    context = await browser.new_context(viewport=PHONE, reduced_motion="reduce")
    context.set_default_timeout(WAIT_MS)
    return await open_activity_in(context, base, user, code, instance_id)


async def open_activity_in(
    context: BrowserContext, base: str, user: User, code: str, instance_id: str
) -> Opened:
    """``user``'s Discord client in ``context`` with the Activity open."""
    html = client_page(base, user, code, instance_id)

    async def route(route: Route) -> None:
        url = route.request.url
        if url.startswith(DISCORD_CLIENT):
            await route.fulfill(status=200, content_type="text/html", body=html)
        elif urlsplit(url).hostname == "127.0.0.1":
            await route.continue_()
        else:
            await route.abort()

    await context.route("**/*", route)
    opened = Opened(await context.new_page())
    opened.page.on("websocket", lambda socket: socket.on("framereceived", lambda data: keep(opened, data)))
    opened.page.on("response", partial(note_response, opened))
    await opened.page.goto(DISCORD_CLIENT)
    return opened


def keep(opened: Opened, data: str | bytes) -> None:
    message = json.loads(data)
    if isinstance(message, dict) and message.get("type") == "state":
        opened.states.append(message["state"])


async def note_response(opened: Opened, answer: Any) -> None:
    if "/api/state" in answer.url or "/api/press" in answer.url:
        body = await answer.json()
        state = body.get("state") if "/api/press" in answer.url else body
        if isinstance(state, dict):
            opened.states.append(state)


def leaked_cards(people: list[Opened]) -> list[str]:
    """Cards of one person's hand found anywhere in a state another person's page got at that version."""
    hands: dict[tuple[int, int], set[str]] = {}  # (version, person) -> that person's hand
    for number, person in enumerate(people):
        for state in person.states:
            hands[(state["version"], number)] = set(state.get("hand") or [])
    leaks = []
    for number, person in enumerate(people):
        for state in person.states:
            seen = set(CARD.findall(json.dumps({k: v for k, v in state.items() if k != "hand"})))
            for (version, other), hand in hands.items():
                if version == state["version"] and other != number and seen & hand:
                    leaks.append(f"page {number} v{version}: {sorted(seen & hand)} of page {other}'s hand")
    return leaks


async def test_three_players_sign_in_through_the_sdk_and_finish_a_game_with_no_hand_leaked(
    browser: Browser, fake_redis: Any
) -> None:
    harness = channel_harness(fake_redis)
    await harness.command(ANN, "newgame", SHORT)
    await harness.tap(BOB, "Join")
    await harness.tap(CAT, "Join")
    await harness.tap(ANN, "Start")
    async with discord_side(ANN, BOB, CAT) as fake, activity_server(harness, fake_redis, fake) as base:
        instance = fake.launch(CHANNEL, GUILD, ANN.id, BOB.id, CAT.id)
        people = [
            await open_activity(browser, base, p, fake.authorize(p.id), instance) for p in (ANN, BOB, CAT)
        ]
        for person in people:
            await person.frame.wait_for_selector("#app[data-phase=play]")
        names = [await p.frame.locator(".hand-head .me").inner_text() for p in people]
        moves = await play_in_turns(cast(list[Page], [p.frame for p in people]))
        results = [await result_lines(cast(Page, p.frame)) for p in people]
        calls = [await p.page.evaluate("() => window.discordCalls.map((call) => call[0])") for p in people]
        authorize = await people[0].page.evaluate("() => window.discordCalls[1][1]")
    assert names == ["Ann", "Bob", "Cat"]
    assert moves > 4 and results[0] == results[1] == results[2] and results[0]
    assert calls == [["HANDSHAKE", "AUTHORIZE", "AUTHENTICATE"]] * 3
    assert authorize["scope"] == ["identify"] and authorize["client_id"] == CLIENT_ID
    assert all(len(p.states) > moves // 3 for p in people)
    assert leaked_cards(people) == []


async def test_a_forged_code_and_a_replayed_code_sign_nobody_in(browser: Browser, fake_redis: Any) -> None:
    harness = channel_harness(fake_redis)
    await harness.command(ANN, "newgame", SHORT)
    async with discord_side(ANN, EVE) as fake, activity_server(harness, fake_redis, fake) as base:
        instance = fake.launch(CHANNEL, GUILD, ANN.id, EVE.id)
        code = fake.authorize(ANN.id)
        first = await open_activity(browser, base, ANN, code, instance)
        await first.frame.wait_for_selector("#app[data-phase=lobby]")
        replayed = await open_activity(browser, base, EVE, code, instance)  # Ann's code, seen by Eve
        forged = await open_activity(browser, base, EVE, "forged-code-0123456789", instance)
        texts = []
        for refused in (replayed, forged):
            await refused.frame.wait_for_selector(".message-text")
            texts.append(await refused.frame.locator("#app").inner_text())
    assert all("sign-in could not be checked" in text for text in texts), texts
    assert not replayed.states and not forged.states


async def test_the_activity_plays_where_the_browser_blocks_third_party_storage(fake_redis: Any) -> None:
    """Discord frames the page from another site; a browser that refuses such frames their storage (Chromium
    blocking third-party cookies, Chrome's incognito) must still sign in and play: the session lives in the
    page's memory. Seen on main: "Failed to read the 'sessionStorage' property from 'Window': Access is
    denied for this document." once the code was spent."""
    harness = channel_harness(fake_redis)
    await harness.command(ANN, "newgame", SHORT)
    await harness.tap(BOB, "Join")
    await harness.tap(ANN, "Start")
    async with (
        discord_side(ANN, BOB) as fake,
        activity_server(harness, fake_redis, fake) as base,
        chromium_blocking_storage_of("http://127.0.0.1", "https://discord.com", LOCAL_FRAMES) as context,
    ):
        instance = fake.launch(CHANNEL, GUILD, ANN.id, BOB.id)
        opened = await open_activity_in(context, base, ANN, fake.authorize(ANN.id), instance)
        blocked = await opened.frame.evaluate(
            "() => { try { sessionStorage.getItem('x'); return ''; } catch (error) { return error.message; } }"
        )
        await opened.frame.wait_for_selector("#app[data-phase=play]")
        hand = await opened.frame.locator(".hand .card").count()
        text = await opened.frame.locator("#app").inner_text()
    assert "Access is denied" in blocked, "the browser did block the frame's storage"
    assert hand == 6 and "Access is denied" not in text
