"""No secret reaches a log line, a traceback or a chat: the Telegram token, the Discord token, the webhook
secret and a Redis password, at DEBUG, through a whole game, a refused token and a dead Redis.

`durak-bot run` is started as a subprocess where it can be, so its whole output is what is checked."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.runtime.config import BotConfig
from bot.runtime.logs import configure
from cli.main import serve
from tests.fakes.discord_gateway import running_fake_discord
from tests.fakes.telegram_api import FakeTelegram
from tests.telegram.world import World

TOKEN = "7012345678:AAHq3xYzW9-secret_half_of_the_token_0123"  # the shape @BotFather hands out
DISCORD_TOKEN = "MTA5OTk5OTk5OTk5OTk5OTk5OQ.GaBcDe.discord-secret-half-0123456789abcdefgh"
WEBHOOK_SECRET = "webhook-secret_0123456789"
REDIS_PASSWORD = "s3cret-redis-pw"
DEAD_REDIS = f"redis://:{REDIS_PASSWORD}@127.0.0.1:1/0"
SECRETS = (TOKEN.split(":")[1], DISCORD_TOKEN, DISCORD_TOKEN.split(".")[2], WEBHOOK_SECRET, REDIS_PASSWORD)
TELEGRAM_REFUSED = "Telegram refused the token; check TELEGRAM_TOKEN"
DISCORD_REFUSED = "Discord refused the token; check DISCORD_TOKEN"
REPO = Path(__file__).resolve().parents[2]


def leaked(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


@pytest.fixture
def debug_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The root logger at DEBUG, as `durak-bot run` sets it up, writing into a buffer the test reads."""
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # configure replaces both: put them back after
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, logging.getLogger("httpx").level)
    stream = io.StringIO()
    config = BotConfig(
        _env_file=None,  # type: ignore[call-arg]
        telegram_token=TOKEN, discord_token=DISCORD_TOKEN, webhook_secret=WEBHOOK_SECRET,
        redis_url=DEAD_REDIS,
    )  # fmt: skip
    configure("DEBUG", "plain", stream=stream, config=config)
    try:
        yield stream
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        logging.getLogger("httpx").setLevel(saved[2])


@pytest.fixture
async def telegram_fake() -> AsyncIterator[FakeTelegram]:
    fake = FakeTelegram(token=TOKEN)
    await fake.start()
    try:
        yield fake
    finally:
        await fake.close()


async def test_a_whole_game_at_debug_by_webhook_logs_no_token_and_no_secret(
    debug_log: io.StringIO, telegram_fake: FakeTelegram, fake_redis: object
) -> None:
    world = World(telegram_fake, fake_redis, webhook=True)
    world.config.webhook_secret = WEBHOOK_SECRET
    await world.start()
    try:
        people = [world.person("Ann"), world.person("Bob")]
        group = telegram_fake.add_group("Club", people, owner=people[0])
        await world.say(group, people[0], "/newgame deck=24")
        await world.tap(group, world.newest(group, "New game"), people[1], "Join")
        await world.tap(group, world.newest(group, "New game"), people[0], "Start")
        await world.play_to_end(group, people)
        assert "Game over" in world.newest(group).text
    finally:
        await world.stop()
    output = debug_log.getvalue()
    assert "Calling Bot API endpoint" in output, "PTB's DEBUG lines were captured"
    assert leaked(output) == []
    shown = [m.text for chat in telegram_fake.chats for m in telegram_fake.bot_messages(chat)]
    assert leaked("\n".join(shown)) == [], "no chat was shown a secret either"


async def durak_bot(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    """`durak-bot run ...` in a fresh folder (no .env) with only ``env`` set; its exit code and output."""
    base = {
        k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM", "DISCORD", "REDIS", "WEBHOOK"))
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "cli.main", "run", *args, cwd=tmp_path,
        env=base | {"DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(REPO)} | env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), 30)
    return await process.wait(), output.decode(errors="replace")


async def test_a_refused_telegram_token_ends_run_with_one_line_and_exit_2(
    tmp_path: Path, telegram_fake: FakeTelegram
) -> None:
    refused = TOKEN.replace("AAHq", "ZZZq")  # the fake answers 401 to any other token
    env = {"TELEGRAM_TOKEN": refused, "TELEGRAM_API_URL": telegram_fake.base_url, "REDIS_URL": DEAD_REDIS,
           "WEBHOOK_SECRET": WEBHOOK_SECRET, "LOG_LEVEL": "DEBUG"}  # fmt: skip
    code, output = await durak_bot(tmp_path, env)
    assert code == 2, output
    assert output.strip().splitlines()[-1] == TELEGRAM_REFUSED
    assert "Traceback" not in output
    assert refused.split(":")[1] not in output and leaked(output) == []
    assert telegram_fake.calls["getMe"] >= 1, "the token was really tried"


async def test_a_dead_redis_at_start_never_shows_its_password(tmp_path: Path) -> None:
    code, output = await durak_bot(tmp_path, {"REDIS_URL": DEAD_REDIS, "LOG_LEVEL": "DEBUG"}, "--check")
    assert code == 1, output
    assert "not answering" in output.lower()
    assert "127.0.0.1:1" in output, "the operator still sees which Redis"
    assert leaked(output) == []


async def test_a_refused_discord_token_ends_run_with_one_line_and_exit_2(
    debug_log: io.StringIO, fake_redis: object, capsys: pytest.CaptureFixture[str]
) -> None:
    from adapters.discord.app import run_discord
    from storage.store import RedisGameStore

    config = BotConfig(_env_file=None, discord_token=DISCORD_TOKEN)  # type: ignore[call-arg]
    async with running_fake_discord():  # its token is not ours: 401 to the login
        code = await serve(config, RedisGameStore(fake_redis), {"discord": run_discord})  # type: ignore[arg-type]
    assert code == 2
    assert capsys.readouterr().err.strip() == DISCORD_REFUSED
    assert "Traceback" not in debug_log.getvalue() and leaked(debug_log.getvalue()) == []
