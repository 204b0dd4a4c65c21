"""Telegram's side of a Mini App sign-in, for tests: `make_init_data` signs an initData with a bot token as
Telegram's client would hand it to the page (``Telegram.WebApp.initData``).

Written from Telegram's description, apart from the code under test (adapters/web/auth.py), so that a
mistake in one is not repeated in the other. Used by the sign-in tests and by the browser tests, which
put the string where Telegram's script would.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import quote


def sign(fields: dict[str, str], bot_token: str) -> str:
    """The hex hash Telegram puts beside ``fields`` (all but ``hash``, sorted, ``key=value`` per line)."""
    check = "\n".join(f"{key}={value}" for key, value in sorted(fields.items()))
    secret = hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()
    return hmac.new(secret, check.encode(), hashlib.sha256).hexdigest()


def encode(fields: dict[str, str]) -> str:
    """A query string of the fields, percent-encoded as Telegram's client does."""
    return "&".join(f"{key}={quote(value, safe='')}" for key, value in fields.items())


def user_json(user_id: int, first_name: str = "Ann", lang: str = "en", **more: object) -> str:
    user = {"id": user_id, "first_name": first_name, "language_code": lang, **more}
    return json.dumps(user, separators=(",", ":"), ensure_ascii=False)


def init_fields(
    user_id: int,
    first_name: str = "Ann",
    lang: str = "en",
    start_param: str | None = None,
    auth_date: float | None = None,
) -> dict[str, str]:
    """The fields of an initData before signing: a user, when it was signed, the link's start parameter."""
    fields = {
        "query_id": "AAHdF6IQAAAAAN0XohDhrOrc",
        "user": user_json(user_id, first_name, lang),
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    return fields


def signed(fields: dict[str, str], bot_token: str) -> str:
    """The initData string for ``fields``, with the hash ``bot_token`` makes."""
    return encode({**fields, "hash": sign(fields, bot_token)})


def make_init_data(
    bot_token: str,
    user_id: int,
    first_name: str = "Ann",
    lang: str = "en",
    start_param: str | None = None,
    auth_date: float | None = None,
) -> str:
    """A valid initData for ``user_id``, signed with ``bot_token`` (now, unless ``auth_date`` says when)."""
    return signed(init_fields(user_id, first_name, lang, start_param, auth_date), bot_token)
