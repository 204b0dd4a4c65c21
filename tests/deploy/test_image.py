"""The image's own commands, run outside a container (no image can be built where the suite runs): the
Dockerfile's CMD serves Telegram from a real redis-server to the fake Bot API, and its HEALTHCHECK command
passes once the process is ready and fails while it is not (nothing listening yet; Redis gone). With
LOG_FORMAT=json its whole output is JSON lines, without the token."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from storage.embedded import RedisServer
from tests.fakes.telegram_api import FakeTelegram
from tests.local.cli import REPO, clean_env
from tests.scale.cluster import free_port

pytestmark = pytest.mark.redis_server


def instruction(name: str) -> list[str]:
    """The exec-form command of the Dockerfile's ``CMD`` or ``HEALTHCHECK ... CMD`` (one line)."""
    text = (REPO / "Dockerfile").read_text()
    match = re.search(rf"^{name}\b.*?(?:CMD )?(\[.*\])\s*$", text, re.MULTILINE)
    assert match is not None, f"the Dockerfile has no exec-form {name}"
    command = json.loads(match.group(1))
    assert isinstance(command, list) and all(isinstance(part, str) for part in command)
    return command


def test_the_dockerfile_runs_the_bot_as_a_non_root_user_with_a_health_check() -> None:
    text = (REPO / "Dockerfile").read_text()
    assert instruction("CMD") == ["durak-bot", "run"]
    assert instruction("HEALTHCHECK") == ["durak-bot", "health"]
    user = re.findall(r"^USER (\S+)", text, re.MULTILINE)
    assert user and user[-1].split(":")[0] not in ("root", "0")
    assert re.search(r"^RUN pip install .*\.\s", text, re.MULTILINE), "the package from the checkout"


def health(env: dict[str, str], cwd: Path) -> tuple[int, str]:
    done = subprocess.run(
        instruction("HEALTHCHECK"), env=env, cwd=cwd, capture_output=True, text=True, timeout=30, check=False
    )
    return done.returncode, (done.stdout + done.stderr).strip()


async def health_soon(
    env: dict[str, str], cwd: Path, want: int, bot: subprocess.Popen[bytes], log: Path
) -> str:
    """Run the health check until it exits ``want`` (60 s at most); its last line."""
    deadline = time.monotonic() + 60
    while True:
        code, line = await asyncio.to_thread(health, env, cwd)
        if code == want:
            return line
        assert bot.poll() is None, f"the bot exited:\n{log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"health kept answering {code}: {line}\n{log.read_text()[-3000:]}"
        await asyncio.sleep(0.5)


async def test_the_images_command_serves_and_its_health_check_follows_readiness(
    redis_server_factory: Callable[..., RedisServer], tmp_path: Path
) -> None:
    redis = redis_server_factory("image")
    fake = FakeTelegram()
    await fake.start()
    port = free_port()
    env = clean_env(
        tmp_path / "data",
        TELEGRAM_TOKEN=fake.token,
        TELEGRAM_API_URL=fake.base_url,
        REDIS_URL=redis.url,
        PORT=str(port),
        AI_WORKERS="1",
        LOG_LEVEL="INFO",
        LOG_FORMAT="json",
    )
    log = tmp_path / "bot.log"
    code, line = await asyncio.to_thread(health, env, tmp_path)
    assert code == 1 and line.startswith("not ready: nothing answers"), line
    with log.open("wb") as out:
        bot = subprocess.Popen(
            instruction("CMD"), cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        line = await health_soon(env, tmp_path, 0, bot, log)
        assert line == "ready: ai, redis, telegram", line
        assert fake.calls["getUpdates"] > 0, "it polls the fake Bot API"
        redis.stop()
        line = await health_soon(env, tmp_path, 1, bot, log)
        assert line.startswith("not ready: redis: "), line
        bot.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(bot.wait, 30) == 0, log.read_text()[-3000:]
        output = log.read_text()
        events = [json.loads(line) for line in output.splitlines() if line.strip()]  # one event a line
        assert any(event["msg"] == "SIGTERM: stopping" for event in events)
        assert fake.token not in output and fake.token.split(":")[1] not in output
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        await fake.close()
