"""Who is asking: the page proves its viewer before it is told anything.

Inside Telegram the page sends the Mini App's ``initData``: a query string Telegram's client signs with a
key derived from our bot token, so only Telegram (and we) can make one. We check it the way Telegram
documents ("Validating data received via the Mini App"):

- the data-check-string is every received field except ``hash``, as ``key=value`` (values decoded), sorted
  by key and joined by line feeds;
- the secret key is HMAC-SHA256 of the bot token under the key ``WebAppData``;
- ``hash`` must be the hex HMAC-SHA256 of the data-check-string under that secret (compared in constant
  time);
- ``auth_date`` is at most a day old (and not ahead of our clock by more than a little skew).

The person is then taken only from the signed ``user`` field, and the game to show from the signed
``start_param``; nothing unsigned is believed. A refusal names its reason, never the data, the hash or the
token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from enum import Enum
from urllib.parse import parse_qsl

from bot.adapter import Translator

INIT_DATA_MAX_AGE = 24 * 3600  # seconds a Mini App's initData stays good (Telegram signs it when opened)
CLOCK_SKEW = 60  # seconds an auth_date may be ahead of our clock (the clocks of two machines)
MAX_INIT_DATA = 8192  # characters: Telegram's are well under 1 KB; anything longer is not one of them
MAX_FIELDS = 32
HASH_CHARS = frozenset("0123456789abcdef")


class Refusal(Enum):
    """Why an initData was not accepted. Logged and shown by name: never with the data itself."""

    MISSING = "missing"  # no initData at all (the page was opened outside Telegram)
    MALFORMED = "malformed"  # not a query string, too long, a field twice
    SIGNATURE = "signature"  # no hash, or one that does not match: forged, altered, or another bot's
    EXPIRED = "expired"  # signed more than a day ago
    FUTURE = "future"  # signed "later" than now: a clock far off, or forged
    NO_USER = "no_user"  # signed, but without a usable person in it


class InitDataRefused(ValueError):
    """The initData is not one Telegram signed for this bot recently. ``str()`` is the reason's name only."""

    def __init__(self, reason: Refusal) -> None:
        super().__init__(f"initData refused: {reason.value}")
        self.reason = reason


@dataclass(frozen=True, slots=True)
class TelegramViewer:
    """The person a valid initData names, and what else Telegram signed with it."""

    user_id: str  # the Telegram user id, as text (as `bot.inputs.User.id`)
    name: str
    lang: str  # Telegram's language_code ("" when none)
    start_param: str  # the ``startapp`` of the link that opened the app ("" when none)
    auth_date: int


def web_app_secret(bot_token: str) -> bytes:
    """The key Telegram signs a Mini App's initData with: HMAC-SHA256(key=b"WebAppData", msg=token)."""
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    """Every field but ``hash``, as ``key=value``, sorted by key, one per line."""
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def signed_fields(init_data: str, bot_token: str) -> dict[str, str]:
    """The decoded fields of an initData whose hash this bot's token made; raises `InitDataRefused`."""
    if not init_data:
        raise InitDataRefused(Refusal.MISSING)
    if len(init_data) > MAX_INIT_DATA:
        raise InitDataRefused(Refusal.MALFORMED)
    try:
        pairs = parse_qsl(
            init_data,
            keep_blank_values=True,
            strict_parsing=True,
            errors="strict",
            max_num_fields=MAX_FIELDS,
        )
    except ValueError:  # not key=value pairs, bad percent-encoding, too many fields
        raise InitDataRefused(Refusal.MALFORMED) from None
    fields = dict(pairs)
    if len(fields) != len(pairs):  # a field given twice: which one was signed is anyone's guess
        raise InitDataRefused(Refusal.MALFORMED)
    received = fields.get("hash", "")
    if len(received) != 64 or not set(received) <= HASH_CHARS:
        raise InitDataRefused(Refusal.SIGNATURE)
    expected = hmac.new(
        web_app_secret(bot_token), data_check_string(fields).encode(), hashlib.sha256
    ).hexdigest()
    if not hmac.compare_digest(expected, received):
        raise InitDataRefused(Refusal.SIGNATURE)
    return fields


def telegram_viewer(
    init_data: str,
    bot_token: str,
    now: float,
    max_age: float = INIT_DATA_MAX_AGE,
    skew: float = CLOCK_SKEW,
) -> TelegramViewer:
    """The viewer a Mini App's initData names, once its signature and age are checked; raises
    `InitDataRefused`. ``now``: unix seconds."""
    fields = signed_fields(init_data, bot_token)
    auth_date = fields.get("auth_date", "")
    if not auth_date.isascii() or not auth_date.isdigit():
        raise InitDataRefused(Refusal.MALFORMED)
    signed_at = int(auth_date)
    if now - signed_at > max_age:
        raise InitDataRefused(Refusal.EXPIRED)
    if signed_at - now > skew:
        raise InitDataRefused(Refusal.FUTURE)
    try:
        user = json.loads(fields.get("user", ""))
    except ValueError:
        raise InitDataRefused(Refusal.NO_USER) from None
    user_id = user.get("id") if isinstance(user, dict) else None
    if type(user_id) is not int or user_id <= 0:  # bool is an int too; Telegram ids are positive
        raise InitDataRefused(Refusal.NO_USER)
    assert isinstance(user, dict)
    name = " ".join(str(user.get(part) or "") for part in ("first_name", "last_name")).strip()
    return TelegramViewer(
        user_id=str(user_id),
        name=name or str(user.get("username") or ""),
        lang=str(user.get("language_code") or ""),
        start_param=fields.get("start_param", ""),
        auth_date=signed_at,
    )


def refusal_text(refusal: Refusal, tr: Translator) -> str:
    """What the page shows (the 401's ``error``): old data asks to reopen; anything else says it is not
    Telegram's."""
    if refusal in (Refusal.EXPIRED, Refusal.FUTURE):
        return tr._("This table was opened too long ago: close it and open it again from the chat.")
    if refusal is Refusal.MISSING:
        return tr._("Open the table from the chat in Telegram.")
    return tr._("Telegram's sign-in could not be checked: close the table and open it again from the chat.")
