"""The log's redaction filter (bot/runtime/logs.py, bot/runtime/redact.py): every secret is masked wherever a
log line or a traceback would carry it, and lines without a secret are left as they were."""

from __future__ import annotations

import io
import json
import logging
import sys
import threading
from collections.abc import Callable

import pytest

from bot.runtime.config import BotConfig
from bot.runtime.logs import configure, keep_secret
from bot.runtime.redact import Redactor, url_password
from storage.redis_url import printable_url

TOKEN = "7012345678:AAHq3xYzW9-secret_half_of_the_token_0123"
OTHER_TOKEN = "5550001111:BBFf_another-bots-secret-half-abcdef"  # not configured: caught by its shape
DISCORD_TOKEN = "MTA5OTk5OTk5OTk5OTk5OTk5OQ.GaBcDe.discord-secret-half-0123456789abcdefgh"
WEBHOOK_SECRET = "webhook-secret_0123456789"
CLIENT_SECRET = "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW"  # DISCORD_CLIENT_SECRET: the Activity's OAuth2 secret
CONFIG = BotConfig(
    _env_file=None,  # type: ignore[call-arg]
    telegram_token=TOKEN, discord_token=DISCORD_TOKEN, webhook_secret=WEBHOOK_SECRET,
    discord_client_secret=CLIENT_SECRET,
    redis_url="rediss://default:p%40ss/w0rd#x@redis.example.com:6380/0",
)  # fmt: skip


def run_at(fmt: str, emit: Callable[[], None]) -> str:
    """What the root logger, configured as `durak-bot run` does, writes while ``emit`` runs."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, logging.getLogger("httpx").level)
    hooks = (sys.excepthook, threading.excepthook)
    stream = io.StringIO()
    configure("DEBUG", fmt, config=CONFIG, stream=stream)
    try:
        emit()
        return stream.getvalue()
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        logging.getLogger("httpx").setLevel(saved[2])
        sys.excepthook, threading.excepthook = hooks


SECRETS = (TOKEN.split(":")[1], OTHER_TOKEN.split(":")[1], DISCORD_TOKEN, WEBHOOK_SECRET, "p%40ss/w0rd#x",
           "p@ss/w0rd#x", CLIENT_SECRET)  # fmt: skip


def shows_a_secret(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


@pytest.mark.parametrize("fmt", ["plain", "json"])
def test_a_configured_secret_is_masked_in_the_message_and_in_its_arguments(fmt: str) -> None:
    def emit() -> None:
        log = logging.getLogger("durak.test")
        log.debug(f"token {TOKEN} and secret {WEBHOOK_SECRET}")
        log.info("discord %s, webhook %r", DISCORD_TOKEN, WEBHOOK_SECRET)

    output = run_at(fmt, emit)
    assert shows_a_secret(output) == []
    assert output.count("***") >= 4


@pytest.mark.parametrize("fmt", ["plain", "json"])
def test_the_discord_client_secret_is_masked(fmt: str) -> None:
    def emit() -> None:
        logging.getLogger("aiohttp.client").debug("POST /oauth2/token client_secret=%s&code=x", CLIENT_SECRET)

    output = run_at(fmt, emit)
    assert "oauth2/token" in output and shows_a_secret(output) == []


def test_a_telegram_token_is_masked_by_its_shape_and_the_bot_id_stays() -> None:
    url = f"https://api.telegram.org/bot{OTHER_TOKEN}/getMe"
    output = run_at("plain", lambda: logging.getLogger("telegram.Bot").debug("Set Bot API URL: %s", url))
    assert "https://api.telegram.org/bot5550001111:***/getMe" in output


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("redis://:hunter22@10.0.0.5:6379/0", "redis://:***@10.0.0.5:6379/0"),
        ("rediss://default:hunter22@cache.example.com:6380", "rediss://default:***@cache.example.com:6380"),
        ("https://user:hunter22@proxy.example.com/bot", "https://user:***@proxy.example.com/bot"),
        ("http://admin:hunter22@127.0.0.1:8081", "http://admin:***@127.0.0.1:8081"),
    ],
)
def test_a_password_in_any_url_is_masked_and_the_host_stays(url: str, masked: str) -> None:
    output = run_at("plain", lambda: logging.getLogger("redis").error("cannot reach %s", url))
    assert masked in output and "hunter22" not in output
    assert printable_url(url) == masked


@pytest.mark.parametrize("fmt", ["plain", "json"])
def test_a_traceback_is_masked_in_the_exception_text_and_the_frames(fmt: str) -> None:
    def fail(token: str = TOKEN) -> None:
        raise ValueError(f"The token `{token}` was rejected by the server.")

    def emit() -> None:
        try:
            fail()
        except ValueError:
            logging.getLogger("durak.test").exception("start-up failed")

    output = run_at(fmt, emit)
    text = json.loads(output)["exc"] if fmt == "json" else output
    assert "Traceback" in text and "rejected by the server" in text
    assert shows_a_secret(output) == []


@pytest.mark.parametrize("fmt", ["plain", "json"])
def test_fields_given_as_extra_are_masked_and_numbers_stay_numbers(fmt: str) -> None:
    fields = {"url": f"redis://:{WEBHOOK_SECRET}@h:1", "token": DISCORD_TOKEN, "ms": 12, "ok": True}
    output = run_at(fmt, lambda: logging.getLogger("durak.actions").info("applied", extra={"fields": fields}))
    assert shows_a_secret(output) == []
    if fmt == "json":
        data = json.loads(output)
        assert (data["ms"], data["ok"], data["url"]) == (12, True, "redis://:***@h:1")
    else:
        assert "ms=12 ok=True" in output


def test_a_webhook_secret_chosen_at_run_time_is_masked_once_kept() -> None:
    chosen = "random-secret-chosen-at-start_42"

    def emit() -> None:
        keep_secret(chosen)
        logging.getLogger("telegram.Bot").debug("POST with %s", {"x": chosen})

    output = run_at("plain", emit)
    assert chosen not in output


def test_the_secret_token_of_a_bot_api_call_is_masked_by_its_name() -> None:
    params = {"url": "https://bot.example.com/hook", "secret_token": "never-configured-secret"}
    log = logging.getLogger("telegram.Bot")
    output = run_at("plain", lambda: log.debug("Calling Bot API endpoint `%s` with parameters `%s`", "setWebhook", params))  # fmt: skip
    assert "never-configured-secret" not in output and "'secret_token': '***'" in output


def test_arguments_that_do_not_fit_the_message_are_masked_not_raised() -> None:
    output = run_at("plain", lambda: logging.getLogger("durak.test").warning("one %s %s", TOKEN))
    assert "one" in output and shows_a_secret(output) == []


def test_an_uncaught_exception_prints_a_masked_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    def hook() -> None:
        try:
            raise RuntimeError(f"could not log in with {DISCORD_TOKEN}")
        except RuntimeError as error:
            sys.excepthook(type(error), error, error.__traceback__)

    run_at("plain", hook)
    printed = capsys.readouterr().err
    assert "RuntimeError: could not log in with ***" in printed and shows_a_secret(printed) == []


@pytest.mark.parametrize(
    "line",
    [
        "applied platform=tg chat=-1001234567890 game=g1 version=7 action=A:QS ms=3",
        "started redis-server on /srv/durak/data/socket/redis.sock (data in /srv/durak/data)",
        "Telegram: webhook https://bot.example.com:8443/telegram-hook (listening on 0.0.0.0:8080)",
        "durak:{tg:-100555}:state at 12:34:56.789",
    ],
)
def test_a_line_without_a_secret_is_left_as_it_was(line: str) -> None:
    assert Redactor([TOKEN, WEBHOOK_SECRET])(line) == line


def test_a_hand_written_redis_password_is_found_even_unencoded() -> None:
    assert url_password("redis://:pa/ss#1@host:6379/0") == "pa/ss#1"
    assert url_password("redis://host:6379/0") is None
    assert url_password("unix:///srv/redis.sock") is None
