"""The headers every answer of the page's routes carries, on whatever app they are mounted on.

- ``X-Content-Type-Options: nosniff`` on every answer: a browser takes each file as the type it is sent as,
  never as script or HTML guessed from its bytes.
- ``Cache-Control: no-store`` on every API answer: a hand, a press's answer, a replay or a session token is
  one viewer's, and no browser or proxy cache may keep it (the page's own files are ``no-cache`` instead,
  `adapters.web.server.revalidated`).
- ``Content-Security-Policy: frame-ancestors ...``: which sites may show the page in a frame. Telegram's
  phone and desktop apps open a Mini App in a webview of their own (no frame, so this does not apply);
  Telegram's web clients show it in an iframe of their page. There is deliberately no ``X-Frame-Options``:
  it cannot name another origin, and ``DENY`` would break the Mini App in Telegram Web.

Which origins Telegram's web clients use (looked up for this list):

- Telegram's own Mini App script, https://telegram.org/js/telegram-web-app.js (a copy is in
  github.com/MarshalX/telegram-crawler, data/web/telegram.org/js/telegram-web-app.js), running in a frame,
  applies its parent's custom style only when ``event.origin === 'https://web.telegram.org'``, and names that
  origin as the ``trustedTarget`` of what it posts to the parent (for now it posts to ``'*'``).
- Both web clients are served from that origin: Web K at https://web.telegram.org/k/ (its README,
  github.com/morethanwords/tweb) and Web A, formerly Z (github.com/Ajaxy/telegram-tt, whose README gives
  web.telegram.org/z).
- Each was first published on a host of its own, https://webk.telegram.org and https://webz.telegram.org;
  those are allowed too (as other Mini Apps allow them), so a client still opened at one of them shows the
  page.

A Discord Activity is the page in an iframe of Discord's client, loaded from the application's proxy
host, ``https://<application id>.discordsays.com``. The Embedded App SDK (2.5.0, src/Discord.ts) takes
messages only from its own origin and Discord's clients, https://discord.com, https://ptb.discord.com and
https://canary.discord.com (and their discordapp.com twins, which now redirect to them); those, and our own
application's proxy host (an Activity framed within Discord's own proxied frame), may frame the Activity's
pages (`discord_frame_ancestors`); no other application's ``*.discordsays.com`` host may. The Telegram
pages are framed by Telegram's web clients only (`TELEGRAM_FRAME_ANCESTORS`).

Anything else (another site framing the page to trick a click) is refused by the browser.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from aiohttp import web

ResponseHook = Callable[[web.Request, web.StreamResponse], Awaitable[None]]

# The sites that may frame the page: Telegram's web clients; Discord's clients, for an Activity.
TELEGRAM_FRAME_ANCESTORS: tuple[str, ...] = (
    "https://web.telegram.org",
    "https://webk.telegram.org",
    "https://webz.telegram.org",
)
DISCORD_CLIENTS: tuple[str, ...] = (
    "https://discord.com",
    "https://ptb.discord.com",
    "https://canary.discord.com",
    "https://discordapp.com",
    "https://ptb.discordapp.com",
    "https://canary.discordapp.com",
)
FRAME_ANCESTORS = TELEGRAM_FRAME_ANCESTORS  # a page served for no platform in particular: Telegram's
NO_FRAME: tuple[str, ...] = ("'none'",)  # the local game's page, opened in a tab of its own
NO_STORE = "no-store"


def discord_frame_ancestors(client_id: str) -> tuple[str, ...]:
    """Discord's clients and this application's own proxy host, for its Activity's pages."""
    return (*DISCORD_CLIENTS, f"https://{client_id}.discordsays.com")


def content_security_policy(ancestors: tuple[str, ...] = FRAME_ANCESTORS) -> str:
    """Only who may frame the page: its scripts and styles are its own files plus Telegram's script, which
    app.js loads only inside Telegram (the Discord SDK is one of its own files), and a tighter policy is not
    needed to keep a hand secret."""
    return "frame-ancestors " + " ".join(ancestors)


def secured(base: str, ancestors: tuple[str, ...] = FRAME_ANCESTORS) -> ResponseHook:
    """Adds the headers above to the answers under ``base`` (the path of WEBAPP_URL; "" for a whole app of
    the page's own), whatever else the app serves (the Telegram webhook, /metrics); ``ancestors`` may frame
    the page."""
    policy = content_security_policy(ancestors)
    api = base + "/api/"

    async def mark(request: web.Request, response: web.StreamResponse) -> None:
        path = request.path
        if base and path != base and not path.startswith(base + "/"):
            return
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Content-Security-Policy"] = policy
        if path.startswith(api):
            response.headers["Cache-Control"] = NO_STORE

    return mark
