"""Where the "Open table" button of a Telegram chat leads: the Mini App (WEBAPP_URL, WEBAPP_NAME).

In a group, a ``web_app`` button is refused, so the table's button is a link to the app by its short name,
``https://t.me/<bot>/<app>?startapp=<ref>``: Telegram opens the app and signs the ``start_param`` into its
initData. In the private chat the hand's button is a ``web_app`` button opening WEBAPP_URL with
``?ref=<ref>`` (the page reads its own query). The ref names the chat's game (adapters/web/links.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from adapters.web.links import game_ref, replay_ref
from bot.adapter import Replay, payloads


@dataclass(frozen=True, slots=True)
class MiniApp:
    url: str  # WEBAPP_URL: the page Telegram opens (public https)
    name: str  # WEBAPP_NAME: the app's short name at @BotFather

    def group_link(self, bot_username: str, ref: str) -> str:
        """A link that opens the app from any chat (a group's table)."""
        return f"https://t.me/{bot_username}/{self.name}?startapp={ref}"

    def page_url(self, ref: str) -> str:
        """The page itself with the game in its query (a private chat's ``web_app`` button)."""
        parts = urlsplit(self.url)
        query = urlencode([*parse_qsl(parts.query, keep_blank_values=True), ("ref", ref)])
        return urlunsplit(parts._replace(query=query))


def payload_ref(payload: str) -> str | None:
    """The ref of the game a button's payload names; None when there is none."""
    parsed = payloads.parse(payload)
    if parsed is None:
        return None
    make_ref = replay_ref if isinstance(parsed.button, Replay) else game_ref  # the result's Replay button
    try:
        return make_ref(parsed.chat_id, parsed.game_id)
    except ValueError:
        return None
