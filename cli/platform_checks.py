"""`durak-bot run --check`, the platforms' side: what an operator sets up at @BotFather and in Discord's
Developer Portal, asked of the platforms themselves, each problem one line saying how to fix it.

- Telegram: the token's bot (getMe), whether it may be added to groups (``can_join_groups``), the webhook
  Telegram holds (getWebhookInfo: its URL against WEBHOOK_URL, its last error, the updates waiting), and the
  Mini App's page at WEBAPP_URL (reachable, our page, its ``healthz`` answering);
- Discord: the token's application (``GET /oauth2/applications/@me``) and whether its global ``/durak``
  command has this version's subcommands (`bot.commands.table`).

Nothing here changes anything at the platforms: every call is a read. The token is only ever in a URL or a
header, never in a line printed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp

from bot.commands.table import Place, offered_in
from bot.runtime.config import BotConfig

TIMEOUT = aiohttp.ClientTimeout(total=10)
PAGE_MARKER = '<main id="app"'  # in our Mini App's index.html (adapters/web/static)
DISCORD_GROUP = "durak"
DISCORD_API = "https://discord.com/api/v10"
SUBCOMMAND = 1  # Discord's option type of a subcommand
SYNC_HOW = "sync them once: DISCORD_SYNC=1 durak-bot run (or python -m adapters.discord sync)"


@dataclass
class Findings:
    """What the checks found: lines that are fine, and problems (each with its fix)."""

    ok: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class Refused(Exception):
    """The platform answered the call with an error; ``status`` is its HTTP status."""

    def __init__(self, status: int, description: str) -> None:
        super().__init__(description)
        self.status = status


async def check_platforms(config: BotConfig, discord_api: str | None = None) -> Findings:
    """Every check that applies to the configured platforms. ``discord_api``: Discord's API base (tests
    point it at the fake; by default discord.py's own)."""
    found = Findings()
    async with aiohttp.ClientSession(timeout=TIMEOUT) as session:
        if config.telegram_token:
            await check_telegram(session, config, found)
        if config.webapp_url and config.webapp_name:
            await check_webapp(session, config.webapp_url, found)
        if config.discord_token:
            await check_discord(session, config.discord_token, discord_api or default_discord_api(), found)
    return found


# ---- Telegram ----------------------------------------------------------------------------------------


async def bot_api(session: aiohttp.ClientSession, config: BotConfig, method: str) -> Any:
    """One Bot API call's ``result``; `Refused` with Telegram's description when it says no."""
    url = f"{config.telegram_api_url.rstrip('/')}/bot{config.telegram_token}/{method}"
    async with session.get(url) as answer:
        try:
            data = await answer.json(content_type=None)
        except ValueError:
            data = {}
    if not isinstance(data, dict) or not data.get("ok"):
        description = data.get("description") if isinstance(data, dict) else None
        raise Refused(answer.status, str(description or f"HTTP {answer.status}"))
    return data["result"]


async def check_telegram(session: aiohttp.ClientSession, config: BotConfig, found: Findings) -> None:
    try:
        me = await bot_api(session, config, "getMe")
    except Refused as error:
        if error.status in (401, 404):
            found.problems.append(
                f"Telegram refused TELEGRAM_TOKEN (getMe: {error}): copy the token again from @BotFather "
                "(/mybots, your bot, API Token); a token revoked there stops working at once."
            )
        else:
            found.problems.append(f"Telegram answered getMe with an error ({error}): try again later.")
        return
    except (aiohttp.ClientError, TimeoutError) as error:
        found.problems.append(
            f"Telegram cannot be reached at TELEGRAM_API_URL ({error or type(error).__name__}): check the "
            "server's network and TELEGRAM_API_URL."
        )
        return
    name = f"@{me.get('username', '?')}"
    found.ok.append(f"Telegram bot: {name} (id {me.get('id')})")
    if me.get("can_join_groups") is False:
        found.problems.append(
            f"{name} may not be added to groups: at @BotFather send /setjoingroups, choose {name}, Enable."
        )
    try:
        hook = await bot_api(session, config, "getWebhookInfo")
    except (Refused, aiohttp.ClientError, TimeoutError) as error:
        found.problems.append(f"Telegram answered getWebhookInfo with an error ({error}): try again later.")
        return
    webhook_findings(hook, config, found)


def webhook_findings(
    hook: dict[str, Any], config: BotConfig, found: Findings, now: float | None = None
) -> None:
    """What getWebhookInfo says against this configuration."""
    held = str(hook.get("url") or "")
    pending = int(hook.get("pending_update_count") or 0)
    wanted = config.webhook_url if config.telegram_webhook or config.webhook_url else None
    if wanted is None and held:
        found.problems.append(
            f"Telegram delivers this bot's updates to the webhook {held}, but this configuration long-polls: "
            "set WEBHOOK_URL to that address, or stop the other deployment (durak-bot run removes the "
            "webhook when it starts polling, and the other one would set it again)."
        )
    elif wanted is not None and held and held != wanted:
        found.problems.append(
            f"Telegram has the webhook {held}, not WEBHOOK_URL {wanted}: another deployment of this token "
            "sets its own; stop it, or give both the same WEBHOOK_URL (one token, one webhook)."
        )
    elif wanted is not None and not held:
        found.ok.append(f"Telegram webhook: not set yet; durak-bot run sets it to {wanted} when it starts")
    else:
        found.ok.append(f"Telegram webhook: {held or 'none (long polling)'}")
    message = hook.get("last_error_message")
    if message and held:
        when = hook.get("last_error_date")
        ago = f", {int((now or time.time()) - when)} s ago" if isinstance(when, int | float) else ""
        found.problems.append(
            f"Telegram's last call of the webhook failed ({message}{ago}): check that {held} reaches this "
            "server (DNS, ports 80 and 443 open, the proxy running) and that its certificate is valid."
        )
    found.ok.append(f"Telegram updates waiting to be delivered: {pending}")


async def check_webapp(session: aiohttp.ClientSession, url: str, found: Findings) -> None:
    """The Mini App's page: it must be reachable, be our page, and its ``healthz`` must answer."""
    fix = "point the domain at this server and let the proxy pass WEBAPP_URL's path to the bot's PORT"
    try:
        async with session.get(url) as answer:
            status, page = answer.status, await answer.text(errors="replace")
    except (aiohttp.ClientError, TimeoutError) as error:
        found.problems.append(f"WEBAPP_URL {url} cannot be reached ({error or type(error).__name__}): {fix}.")
        return
    if status != 200 or PAGE_MARKER not in page:
        found.problems.append(
            f"WEBAPP_URL {url} answers (HTTP {status}) but not with this bot's page: {fix}; the URL at "
            "@BotFather (/myapps) must be WEBAPP_URL."
        )
        return
    health = url.rstrip("/") + "/healthz"
    try:
        async with session.get(health) as answer:
            healthy = answer.status == 200 and (await answer.json(content_type=None)).get("ok") is True
    except (aiohttp.ClientError, TimeoutError, ValueError, AttributeError):
        healthy = False
    if not healthy:
        found.problems.append(f"The Mini App's page answers, but {health} does not: {fix}.")
        return
    found.ok.append(f"Telegram Mini App page: {url} serves this bot's page")


# ---- Discord -----------------------------------------------------------------------------------------


def default_discord_api() -> str:
    try:
        from discord.http import Route
    except ModuleNotFoundError:
        return DISCORD_API
    return str(Route.BASE)


async def discord_api_call(session: aiohttp.ClientSession, base: str, token: str, path: str) -> Any:
    async with session.get(base + path, headers={"Authorization": f"Bot {token}"}) as answer:
        try:
            data = await answer.json(content_type=None)
        except ValueError:
            data = None
        if answer.status != 200:
            message = data.get("message") if isinstance(data, dict) else None
            raise Refused(answer.status, str(message or f"HTTP {answer.status}"))
    return data


async def check_discord(session: aiohttp.ClientSession, token: str, base: str, found: Findings) -> None:
    try:
        app = await discord_api_call(session, base, token, "/oauth2/applications/@me")
        commands = await discord_api_call(session, base, token, f"/applications/{app['id']}/commands")
    except Refused as error:
        if error.status == 401:
            found.problems.append(
                "Discord refused DISCORD_TOKEN: in the Developer Portal open your application, Bot, "
                "Reset Token, and put the new token in DISCORD_TOKEN."
            )
        else:
            found.problems.append(f"Discord answered with an error ({error}): try again later.")
        return
    except (aiohttp.ClientError, TimeoutError) as error:
        found.problems.append(
            f"Discord cannot be reached ({error or type(error).__name__}): check the network."
        )
        return
    found.ok.append(f"Discord application: {app.get('name', '?')} (id {app['id']})")
    problems = command_problems(commands)
    found.problems.extend(problems)
    if not problems:
        found.ok.append(f"Discord commands: /{DISCORD_GROUP} is synced with this version's subcommands")


def wanted_subcommands() -> set[str]:
    return {spec.discord.name for spec in offered_in(Place.DISCORD) if spec.discord is not None}


def command_problems(commands: Any) -> list[str]:
    """Whether the global commands have ``/durak`` with exactly this version's subcommands."""
    group = next((c for c in commands or [] if isinstance(c, dict) and c.get("name") == DISCORD_GROUP), None)
    if group is None:
        return [f"Discord has no /{DISCORD_GROUP} command for this application: {SYNC_HOW}."]
    synced = {o.get("name") for o in group.get("options") or [] if o.get("type") == SUBCOMMAND}
    wanted = wanted_subcommands()
    if synced == wanted:
        return []
    missing = ", ".join(sorted(wanted - synced)) or "none"
    extra = ", ".join(sorted(str(name) for name in synced - wanted)) or "none"
    return [
        f"Discord's /{DISCORD_GROUP} is not this version's (missing: {missing}; no longer offered: {extra}): "
        f"{SYNC_HOW}."
    ]
