"""What the page's server says when it refuses: a request's answer (its status and the reason the page shows,
in the viewer's language) and a WebSocket's last message and close code."""

from __future__ import annotations

import contextlib

from aiohttp import web

from adapters.web.limits import retry_after
from adapters.web.live import CLOSE_TOO_MANY
from bot.adapter import PressLimiter, Translator, normalise_language

CLOSE_UNAUTHORIZED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_REASONS = {  # a close frame's reason (for logs and developers; the page shows the error message)
    CLOSE_UNAUTHORIZED: b"no valid hello",
    CLOSE_NOT_FOUND: b"no such game",
    CLOSE_TOO_MANY: b"too many pages open",
}


async def refuse(socket: web.WebSocketResponse, status: int, text: str, code: int) -> None:
    """Tell a page why (``{"type": "error", "status", "error"}``, shown as it is), then close its socket
    with ``code``."""
    if socket.closed:
        return
    with contextlib.suppress(ConnectionError):
        await socket.send_json({"type": "error", "status": status, "error": text})
    await socket.close(code=code, message=CLOSE_REASONS[code])


def asked_lang(request: web.Request) -> str:
    """The page's language before the viewer is known: ``?lang=``, else the browser's first choice."""
    asked = request.query.get("lang") or request.headers.get("Accept-Language") or ""
    return normalise_language(asked.split(",")[0].split(";")[0].strip())


def not_signed_in(tr: Translator) -> str:
    return tr._("This page is not signed in: open it again from the chat or the printed link.")


def left_text(tr: Translator) -> str:
    return tr._("You left the Activity, so this table is closed: open the Activity again to play.")


def too_many_pages_text(tr: Translator) -> str:
    return tr._("Too many pages of the game are open on your account: close one, and this one reconnects.")


def too_many_pages_here_text(tr: Translator) -> str:
    return tr._("Too many pages of the game are open from your network: close one, and this one reconnects.")


def no_game_text(tr: Translator) -> str:
    return tr._("This game is not here any more: open the table again from the chat.")


def not_archived_text(tr: Translator) -> str:
    return tr._("This game is not in the archive: games are kept for 30 days after they end.")


def failed(status: int, text: str, headers: dict[str, str] | None = None) -> web.Response:
    """A refused request: its status and the translated reason the page shows."""
    return web.json_response({"error": text}, status=status, headers=headers)


def too_many(tr: Translator, limiter: PressLimiter) -> web.Response:
    """A read refused by the person's limit (`adapters.web.limits`): 429, and when to ask again."""
    text = tr._("Too many requests: wait a moment.")
    return failed(429, text, {"Retry-After": retry_after(limiter)})


def unavailable(tr: Translator) -> web.Response:
    text = tr._("The game service is unavailable, try again in a moment.")
    return failed(503, text)
