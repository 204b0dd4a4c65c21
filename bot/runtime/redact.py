"""Secrets masked out of text bound for a log or a terminal.

Two nets, because either alone leaks: the configured values (``TELEGRAM_TOKEN``, ``DISCORD_TOKEN``,
``DISCORD_CLIENT_SECRET``, ``WEBHOOK_SECRET``, the password in ``REDIS_URL``) are masked wherever they appear, and so is anything shaped
like a secret, which catches what a library builds from them (python-telegram-bot logs its Bot API URL,
``.../bot<token>/``, at DEBUG; an exception may quote a URL with ``user:password@``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

from bot.platforms import SERVED_PLATFORMS
from bot.runtime.config import BotConfig

MASK = "***"
MIN_SECRET = 4  # shorter configured values are not masked by value (every "ab" in a log would go); the
# patterns below still mask them where they sit in a URL or a token
TELEGRAM_TOKEN = re.compile(r"(?<![0-9])([0-9]{3,}):[A-Za-z0-9_-]{30,}")  # bot id (public) : secret
DISCORD_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}")
URL_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@]*):[^\s/?#@]+@")
SECRET_PARAM = re.compile(r"""((?:secret_token|password)['"]?\s*[:=]\s*['"]?)[^\s'",}&]+""")


class Redactor:
    """``redactor(text)``: the text with every known and every secret-shaped value replaced by ``***``."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._values: set[str] = set()
        self._known: re.Pattern[str] | None = None
        for secret in secrets:
            self.add(secret)

    def add(self, secret: str | None) -> None:
        """Mask this value from now on (a secret chosen at run time, such as a random webhook secret)."""
        if not secret or len(secret) < MIN_SECRET or secret in self._values:
            return
        self._values.add(secret)
        longest_first = sorted(self._values, key=len, reverse=True)  # a token holding another is masked whole
        self._known = re.compile("|".join(re.escape(value) for value in longest_first))

    def __call__(self, text: str) -> str:
        if self._known is not None:
            text = self._known.sub(MASK, text)
        if ":" in text:
            text = TELEGRAM_TOKEN.sub(rf"\1:{MASK}", text)
            if "@" in text:
                text = URL_PASSWORD.sub(rf"\1:{MASK}@", text)
        if "." in text:
            text = DISCORD_TOKEN.sub(MASK, text)
        if "secret_token" in text or "password" in text:
            text = SECRET_PARAM.sub(rf"\1{MASK}", text)
        return text


def url_password(url: str | None) -> str | None:
    """The password in ``scheme://user:password@host``, read leniently (a ``/`` or ``#`` in it is not
    percent-encoded in every hand-written .env)."""
    if not url or "://" not in url:
        return None
    userinfo, at, _ = url.split("://", 1)[1].rpartition("@")
    _, colon, password = userinfo.partition(":")
    return password if at and colon and password else None


def configured_secrets(config: BotConfig) -> list[str]:
    """The values of the settings that are secrets, as written and percent-decoded."""
    found = [platform.token(config) for platform in SERVED_PLATFORMS]
    found += [config.webhook_secret, config.discord_client_secret]
    for url in (config.redis_url, config.telegram_api_url, config.webhook_url):
        password = url_password(url)
        found += [password, unquote(password)] if password else []
    return [secret for secret in found if secret]
