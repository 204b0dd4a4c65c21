"""`durak-bot run --check` on the platforms' side (cli/platform_checks.py), against the fake Bot API, the
fake Discord API and a local page: each mistake an operator makes at @BotFather or in Discord's Developer
Portal is one problem line saying how to fix it; a correct setup has none."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from adapters.discord.__main__ import sync
from bot.runtime import health
from bot.runtime.config import BotConfig
from cli.platform_checks import Findings, check_platforms, wanted_subcommands
from tests.fakes.discord_gateway import FakeDiscord, running_fake_discord
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_fixture import telegram_api
from tests.local.cli import REPO, clean_env
from tests.scale.cluster import free_port

INDEX = REPO / "adapters" / "web" / "static" / "index.html"
__all__ = ["telegram_api"]  # the fixture


@pytest.fixture
async def discord_api() -> AsyncIterator[FakeDiscord]:
    async with running_fake_discord() as fake:
        yield fake


def settings(fake: FakeTelegram | None = None, **values: object) -> BotConfig:
    telegram = {"telegram_token": fake.token, "telegram_api_url": fake.base_url} if fake else {}
    return BotConfig(_env_file=None, **telegram | values)  # type: ignore[call-arg]


def only_problem(found: Findings) -> str:
    assert len(found.problems) == 1, found.problems
    return found.problems[0]


# ---- Telegram ----------------------------------------------------------------------------------------


async def test_a_correct_telegram_setup_has_no_problem(telegram_api: FakeTelegram) -> None:
    found = await check_platforms(settings(telegram_api))
    assert found.problems == []
    assert f"Telegram bot: @{telegram_api.bot_username} (id {telegram_api.bot_id})" in found.ok


async def test_a_token_telegram_refuses_is_named_with_where_to_copy_it_again(
    telegram_api: FakeTelegram,
) -> None:
    found = await check_platforms(settings(telegram_api, telegram_token="999:not-the-token"))
    problem = only_problem(found)
    assert problem.startswith("Telegram refused TELEGRAM_TOKEN") and "@BotFather" in problem
    assert "not-the-token" not in problem


async def test_an_unreachable_bot_api_says_to_check_the_network(telegram_api: FakeTelegram) -> None:
    found = await check_platforms(settings(telegram_api, telegram_api_url=f"http://127.0.0.1:{free_port()}"))
    assert only_problem(found).startswith("Telegram cannot be reached at TELEGRAM_API_URL")


async def test_a_bot_that_may_not_join_groups_is_told_about_setjoingroups(telegram_api: FakeTelegram) -> None:
    telegram_api.can_join_groups = False
    problem = only_problem(await check_platforms(settings(telegram_api)))
    assert "may not be added to groups" in problem and "/setjoingroups" in problem


async def test_a_webhook_held_by_another_deployment_is_named(telegram_api: FakeTelegram) -> None:
    telegram_api.webhook = {
        "url": "https://other.example.org/hook",
        "max_connections": 40,
        "secret_token": None,
    }
    mine = "https://durak.example.org/telegram"
    problem = only_problem(await check_platforms(settings(telegram_api, webhook_url=mine)))
    assert "https://other.example.org/hook" in problem and mine in problem and "one webhook" in problem


async def test_a_webhook_set_while_this_configuration_polls_is_named(telegram_api: FakeTelegram) -> None:
    telegram_api.webhook = {
        "url": "https://old.example.org/hook",
        "max_connections": 40,
        "secret_token": None,
    }
    problem = only_problem(await check_platforms(settings(telegram_api)))
    assert "long-polls" in problem and "WEBHOOK_URL" in problem


async def test_the_webhooks_last_error_is_told_with_what_to_check(telegram_api: FakeTelegram) -> None:
    hook = "https://durak.example.org/telegram"
    telegram_api.webhook = {"url": hook, "max_connections": 40, "secret_token": None}
    telegram_api.webhook_last_error = (int(telegram_api.clock.wall()) - 30, "Connection refused")
    telegram_api.enqueue("message", {"text": "/start"})
    found = await check_platforms(settings(telegram_api, webhook_url=hook))
    problem = only_problem(found)
    assert "last call of the webhook failed (Connection refused" in problem and "ports 80 and 443" in problem
    assert "Telegram updates waiting to be delivered: 1" in found.ok


async def test_a_webhook_not_set_yet_is_no_problem(telegram_api: FakeTelegram) -> None:
    found = await check_platforms(settings(telegram_api, webhook_url="https://durak.example.org/telegram"))
    assert found.problems == []
    assert any(line.startswith("Telegram webhook: not set yet") for line in found.ok)


# ---- the Mini App's page -------------------------------------------------------------------------------


@pytest.fixture
async def page_server() -> AsyncIterator[tuple[str, dict[str, web.Response | None]]]:
    """A local server for WEBAPP_URL's path ``/app/``; the test chooses what the page and healthz answer
    (None: the bot's own)."""
    answers: dict[str, web.Response | None] = {"page": None, "healthz": None}

    async def page(request: web.Request) -> web.StreamResponse:
        return answers["page"] or web.FileResponse(INDEX)

    async def healthz(request: web.Request) -> web.StreamResponse:
        return answers["healthz"] or await health.healthz(request)

    app = web.Application()
    app.router.add_get("/app/", page)
    app.router.add_get("/app/healthz", healthz)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}/app/", answers
    finally:
        await runner.cleanup()


async def webapp_findings(url: str) -> Findings:
    return await check_platforms(settings(webapp_url=url, webapp_name="table"))


async def test_the_bots_own_page_with_its_healthz_passes(
    page_server: tuple[str, dict[str, web.Response | None]],
) -> None:
    url, _ = page_server
    found = await webapp_findings(url)
    assert found.problems == [] and f"Telegram Mini App page: {url} serves this bot's page" in found.ok


async def test_an_unreachable_page_says_to_point_the_domain_here() -> None:
    url = f"http://127.0.0.1:{free_port()}/app/"
    problem = only_problem(await webapp_findings(url))
    assert problem.startswith(f"WEBAPP_URL {url} cannot be reached") and "point the domain" in problem


async def test_another_page_at_the_url_is_not_taken_for_ours(
    page_server: tuple[str, dict[str, web.Response | None]],
) -> None:
    url, answers = page_server
    answers["page"] = web.Response(text="<html>Welcome to nginx!</html>", content_type="text/html")
    problem = only_problem(await webapp_findings(url))
    assert "not with this bot's page" in problem and "/myapps" in problem


async def test_our_page_without_a_healthz_answering_is_a_problem(
    page_server: tuple[str, dict[str, web.Response | None]],
) -> None:
    url, answers = page_server
    answers["healthz"] = web.Response(status=502, text="bad gateway")
    assert f"{url}healthz does not" in only_problem(await webapp_findings(url))


# ---- Discord -------------------------------------------------------------------------------------------


async def discord_findings(fake: FakeDiscord, token: str | None = None) -> Findings:
    return await check_platforms(settings(discord_token=token or fake.token), discord_api=fake.api_base)


async def test_synced_discord_commands_pass(
    discord_api: FakeDiscord, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await sync(discord_api.token, None) == 0
    found = await discord_findings(discord_api)
    assert found.problems == []
    assert (
        f"Discord application: {discord_api.application_payload()['name']} (id {discord_api.app_id})"
        in found.ok
    )


async def test_a_discord_token_refused_says_to_reset_it(discord_api: FakeDiscord) -> None:
    problem = only_problem(await discord_findings(discord_api, token="wrong-token"))
    assert problem.startswith("Discord refused DISCORD_TOKEN") and "Reset Token" in problem


async def test_commands_never_synced_say_how_to_sync(discord_api: FakeDiscord) -> None:
    problem = only_problem(await discord_findings(discord_api))
    assert "no /durak command" in problem and "DISCORD_SYNC=1" in problem


async def test_commands_of_another_version_name_what_differs(
    discord_api: FakeDiscord, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await sync(discord_api.token, None) == 0
    durak = discord_api.commands[None][0]
    dropped = sorted(wanted_subcommands())[0]
    durak["options"] = [o for o in durak["options"] if o["name"] != dropped]
    durak["options"].append({"type": 1, "name": "oldthing", "description": "gone"})
    problem = only_problem(await discord_findings(discord_api))
    assert f"missing: {dropped}" in problem and "no longer offered: oldthing" in problem


# ---- through the command line ----------------------------------------------------------------------------


async def test_run_check_prints_each_problem_and_exits_1(telegram_api: FakeTelegram, tmp_path: Path) -> None:
    telegram_api.can_join_groups = False
    env = clean_env(
        tmp_path / "data", TELEGRAM_TOKEN=telegram_api.token, TELEGRAM_API_URL=telegram_api.base_url
    )
    command = [sys.executable, "-m", "cli.main", "run", "--check"]
    done = await asyncio.create_subprocess_exec(
        *command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await asyncio.wait_for(done.communicate(), 60)
    assert done.returncode == 1, err.decode()
    assert f"Telegram bot: @{telegram_api.bot_username}" in out.decode()
    assert "PROBLEM: " in err.decode() and "/setjoingroups" in err.decode()
    assert telegram_api.token not in out.decode() + err.decode()
