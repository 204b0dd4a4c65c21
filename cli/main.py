"""`durak-bot`: play in the terminal, watch a demo game, serve Telegram/Discord, replay an archived game or
check its deal.

Wiring happens here and only here: read the configuration, open the store, build the service, start the
adapters and the turn-timer loop. Nothing connects or reads the environment at import time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import importlib
import logging
import os
import secrets
import signal
import sys
from collections.abc import Awaitable, Callable, Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import ValidationError

from bot.i18n import LANGUAGES
from bot.platforms import SERVED_PLATFORMS
from bot.runtime.config import BotConfig
from cli.archive import replay, verify
from cli.stores import local_data_dir, open_store_or_explain

if TYPE_CHECKING:
    from bot.adapter import RunPlatform
    from bot.runtime.metrics import Metrics
    from storage.store import GameStore

log = logging.getLogger("durak.main")

LEVELS = ("easy", "normal", "hard")
NO_PLATFORM = "\n".join(
    [
        "Nothing to serve: set at least one of",
        *(f"  {platform.token_setting:<16} {platform.token_help}" for platform in SERVED_PLATFORMS),
        "in the environment or in a .env file here (copy .env.example to .env).",
        "To play without a token: durak-bot play",
    ]
)
PLATFORM_MODULES = {platform.name: (platform.module, platform.entry) for platform in SERVED_PLATFORMS}
PLATFORM_IDS = {platform.name: platform.id for platform in SERVED_PLATFORMS}


def player_count(text: str) -> int:
    n = int(text)
    if not 2 <= n <= 6:
        raise argparse.ArgumentTypeError("Durak takes 2 to 6 players")
    return n


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="durak-bot", description="The card game Durak: terminal, Telegram, Discord."
    )
    commands = top.add_subparsers(
        dest="command", required=True, metavar="{play,demo,run,health,replay,verify}"
    )

    play = commands.add_parser("play", help="play against AI players in this terminal")
    play.add_argument(
        "words", nargs="*", help="rules words, as for /newgame: transfer deck=24 neighbours ..."
    )
    play.add_argument(
        "--players", type=player_count, default=2, help="players at the table, you included (2-6)"
    )
    play.add_argument("--ai", choices=LEVELS, default="normal", help="strength of the AI players")
    play.add_argument("--lang", choices=LANGUAGES, default="en", help="language of the table")
    play.add_argument("--seed", type=int, help="deal this seed's deck (the same seed deals the same cards)")
    play.add_argument("--name", help="your name at the table (default: your login name)")
    play.add_argument("--web", action="store_true", help="play on a page in your browser instead")
    play.add_argument(
        "--port", type=int, default=0, help="with --web: the port on 127.0.0.1 (default: a free one)"
    )
    play.add_argument("--no-browser", action="store_true", help="with --web: print the address, open nothing")

    demo = commands.add_parser("demo", help="an AI-only game, printed as the group chat would see it")
    demo.add_argument("words", nargs="*", help="rules words, as for /newgame")
    demo.add_argument("--players", type=player_count, default=3, help="players at the table (2-6)")
    demo.add_argument("--seed", type=int, help="the same seed prints the same game")
    demo.add_argument("--ai", choices=LEVELS, default="normal", help="strength of the players")
    demo.add_argument(
        "--brief", action="store_true", help="print only the final table, the result and /stats"
    )

    run = commands.add_parser("run", help="serve Telegram and/or Discord, by the tokens set")
    run.add_argument(
        "--check",
        action="store_true",
        help="check the configuration, Redis and the platforms' side, then exit",
    )
    run.add_argument(
        "--offline", action="store_true", help="with --check: ask nothing of Telegram and Discord"
    )
    run.add_argument(
        "--webhook", action="store_true", help="Telegram by webhook (needs WEBHOOK_URL and PORT)"
    )

    health = commands.add_parser("health", help="is the bot running here ready? (GET /readyz; exit 0 or 1)")
    health.add_argument("--port", type=int, help="the bot's port (default: PORT)")

    verify = commands.add_parser("verify", help="check that an archived game's deal was not changed")
    verify.add_argument("game_id", help="the id printed after the game (also in the archive)")
    replay = commands.add_parser("replay", help="print an archived game step by step")
    replay.add_argument("game_id", help="the id printed after the game (also in the archive)")
    replay.add_argument("--lang", choices=LANGUAGES, default="en")
    replay.add_argument(
        "--analyse", action="store_true", help="then the hard AI's view of each player's decisions"
    )
    replay.add_argument("--workers", type=int, default=0, help="processes for --analyse (default: cores)")
    return top


def load_config() -> BotConfig | None:
    try:
        return BotConfig()
    except ValidationError as error:
        print("Configuration error (environment or .env):", file=sys.stderr)
        for problem in error.errors():
            name = ".".join(str(p) for p in problem["loc"]).upper()
            print(f"  {name}: {problem['msg']}", file=sys.stderr)
        return None


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    config = load_config()
    if config is None:
        return 2
    quiet = args.command in ("play", "demo", "health", "replay", "verify") and config.log_level != "DEBUG"
    from bot.runtime.logs import configure

    level = logging.WARNING if quiet else config.log_level
    configure(level, config.log_format, config=config)  # json, secrets masked: see bot/runtime/logs.py
    commands: dict[str, Callable[[BotConfig, argparse.Namespace], Coroutine[Any, Any, int]]] = {
        "play": play,
        "demo": demo,
        "run": run,
        "health": health,
        "replay": replay,
        "verify": verify,
    }
    try:
        return asyncio.run(commands[args.command](config, args))
    except KeyboardInterrupt:
        if args.command == "play":
            print("\nLeft the table. The game is saved: run the same command to continue.")
        return 0
    except BrokenPipeError:  # the output was piped into `head` or similar, which has stopped reading
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


# ---- play ---------------------------------------------------------------------------------------------


async def play(config: BotConfig, args: argparse.Namespace) -> int:
    from adapters.local.screen import Screen
    from adapters.local.terminal import PlayOptions, play_in_terminal
    from bot.context import ServiceConfig
    from bot.i18n import translator
    from bot.inputs import User
    from bot.service import GameService
    from core.deal import new_seed

    seed = args.seed
    opened = await open_store_or_explain(None, local_data_dir(config))
    if opened is None:
        return 1
    store, close = opened
    try:
        service = GameService(
            store,
            ServiceConfig(ai_delay=config.ai_delay, start_wait=config.start_wait),
            seed_source=(lambda: seed) if seed is not None else new_seed,
        )
        tr = translator(args.lang)
        ansi = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        screen = Screen(sys.stdout, "you", tr, ansi=ansi, redraw=sys.stdout.isatty() and sys.stdin.isatty())
        user = User("you", args.name or login_name() or tr._("Player"), args.lang)
        poll = min(0.25, max(0.02, config.ai_delay / 4))
        if args.web:
            return await play_in_browser(service, store, user, args, poll)
        options = PlayOptions(" ".join(args.words), args.players, args.ai, args.lang)
        return await play_in_terminal(service, screen, user, options, poll)
    finally:
        await close()


async def play_in_browser(
    service: Any, store: GameStore, user: Any, args: argparse.Namespace, poll: float
) -> int:
    """`durak-bot play --web`: the same game served as a page on 127.0.0.1 (adapters/web/local.py)."""
    from adapters.web.local import WebPlayOptions, serve_web_game
    from storage.store import RedisGameStore

    assert isinstance(store, RedisGameStore)  # the embedded Redis: pub/sub carries the page's updates
    words = " ".join(args.words)
    options = WebPlayOptions(words, args.players, args.ai, args.lang, args.port, not args.no_browser)
    return await serve_web_game(service, store.redis, user, options, sys.stdout, poll)


def login_name() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        return ""
    return name[:1].upper() + name[1:32]


# ---- demo ---------------------------------------------------------------------------------------------


async def demo(config: BotConfig, args: argparse.Namespace) -> int:
    from adapters.local.demo import DemoOptions, run_demo

    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    options = DemoOptions(" ".join(args.words), args.players, seed, args.ai, args.brief)
    return await run_demo(options, sys.stdout)


# ---- run ----------------------------------------------------------------------------------------------


def platform_runner(name: str) -> RunPlatform | str:
    """The platform's entry function (`bot.adapter.RunPlatform`), or a message saying why it cannot be
    loaded."""
    module_name, function = PLATFORM_MODULES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name and module_name.startswith(error.name):
            return f"{name.capitalize()} support is missing from this installation: no module {module_name}."
        raise
    runner: RunPlatform | None = getattr(module, function, None)
    if not callable(runner):
        return f"{module_name} has no {function}(config, service, store, deliveries)."
    return runner


def config_problems(config: BotConfig) -> list[str]:
    problems = []
    if config.telegram_webhook and not config.webhook_url:
        problems.append("--webhook needs WEBHOOK_URL (the public https address Telegram will call).")
    if config.telegram_webhook and not config.telegram_token:
        problems.append("--webhook serves Telegram: set TELEGRAM_TOKEN.")
    if config.webhook_url and not config.webhook_url.startswith("https://"):
        problems.append("WEBHOOK_URL must start with https:// (Telegram calls webhooks over TLS only).")
    problems.extend(webapp_problems(config))
    if config.redis_url:
        from storage.redis_url import InvalidRedisUrl, parse_redis_url

        try:
            parse_redis_url(config.redis_url)
        except InvalidRedisUrl as error:
            problems.append(str(error))
    return problems


def webapp_problems(config: BotConfig) -> list[str]:
    """The Mini App needs both settings, a public https page and a bot to open it from (docs/webapp.md)."""
    problems = []
    if bool(config.webapp_url) != bool(config.webapp_name):
        problems.append("The Mini App needs both WEBAPP_URL and WEBAPP_NAME (its short name at @BotFather).")
    if config.webapp_url and (
        not config.webapp_url.startswith("https://") or len(config.webapp_url) <= len("https://")
    ):
        problems.append("WEBAPP_URL must start with https:// (Telegram opens Mini Apps over TLS only).")
    if config.webapp_url and config.webapp_name and not config.telegram_token:
        problems.append("WEBAPP_URL and WEBAPP_NAME open the app from Telegram: set TELEGRAM_TOKEN.")
    return problems


async def run(config: BotConfig, args: argparse.Namespace) -> int:
    if args.webhook:  # the adapters get the mode with the rest of the configuration
        config = config.model_copy(update={"telegram_webhook": True})
    problems = config_problems(config)
    runners: dict[str, RunPlatform] = {}
    for name in config.platforms:
        runner = platform_runner(name)
        if isinstance(runner, str):
            problems.append(runner)
        else:
            runners[name] = runner
    if not config.platforms and not args.check:
        print(NO_PLATFORM, file=sys.stderr)
        return 2
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    opened = await open_store_or_explain(config.redis_url, config.data_dir)
    if opened is None:
        return 1
    store, close = opened
    try:
        if args.check:
            return await check(config, store, online=not args.offline)
        return await serve(config, store, runners)
    finally:
        await close()


async def check(config: BotConfig, store: GameStore, online: bool = True) -> int:
    from storage.errors import StoreUnavailable

    where = "REDIS_URL" if config.redis_url else f"the embedded redis-server in {config.data_dir}"
    try:
        await store.ping()
    except StoreUnavailable as error:
        print(f"Redis: NOT answering ({where}): {error}", file=sys.stderr)
        return 1
    print(
        f"Configuration: ok (AI_DELAY={config.ai_delay}, START_WAIT={config.start_wait}, LOG_LEVEL={config.log_level}"
        f", LOG_FORMAT={config.log_format})"
    )
    if config.metrics:
        port = f"{config.port} (the webhook's)" if config.metrics_on_webhook else str(config.metrics_port)
        print(f"Metrics: on, GET /metrics on port {port}")
    print(f"Redis: ok ({where})")
    for platform in SERVED_PLATFORMS:
        state = (
            "will be served" if platform.name in config.platforms else f"off (set {platform.token_setting})"
        )
        print(f"{platform.name.capitalize()}: {state}")
    if config.webapp_on:
        print(f"Telegram Mini App: on, {config.webapp_url} (short name {config.webapp_name})")
    if not config.platforms:
        tokens = " and/or ".join(platform.token_setting for platform in SERVED_PLATFORMS)
        print(f"Nothing would be served yet: set {tokens}.")
    if not config.platforms or not online:
        return 0
    from cli.platform_checks import check_platforms

    found = await check_platforms(config)
    for line in found.ok:
        print(line)
    for problem in found.problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if found.problems else 0


async def serve(config: BotConfig, store: GameStore, runners: dict[str, RunPlatform]) -> int:
    """Every configured platform in this one process, beside one turn-timer loop for all of them."""
    from bot.context import ServiceConfig
    from bot.runtime import health
    from bot.runtime.ai_pool import AiPool, hint_limiter
    from bot.runtime.gc_tuning import tune_garbage_collector
    from bot.runtime.ratelimit import PressLimiter, command_limiter
    from bot.service import GameService
    from bot.timers import Deliveries, run_timers
    from storage.presence import open_pages
    from storage.store import RedisGameStore

    tune_garbage_collector()  # every module this process needs is imported by now
    metrics = process_metrics(config)
    # AI moves and /hint off the event loop
    ai = AiPool(config.ai_workers, config.ai_deadline_ms / 1000, metrics=metrics)
    # the Redis client the web pages follow saved changes on (pub/sub), handed to the platforms serving them
    live = store.redis if isinstance(store, RedisGameStore) else None
    service = GameService(
        store,
        ServiceConfig(
            ai_delay=config.ai_delay,
            start_wait=config.start_wait,
            app_platforms=app_platforms(config),  # "Open table" buttons (docs/webapp.md)
        ),
        limiter=PressLimiter(),  # per process: see bot/runtime/ratelimit.py
        ai=ai,
        hint_limiter=hint_limiter(),
        commands=command_limiter(),  # a flood of commands costs neither Redis calls nor group messages
        # who has a page open (any process): their chat screens wait for them (bot/game/app_screens.py)
        on_app=partial(open_pages, live) if live is not None else None,
        metrics=metrics,
    )
    stop = asyncio.Event()
    deliveries = Deliveries()  # each adapter registers how its platform's deadline effects are delivered
    timers = asyncio.create_task(run_timers(service, store, stop, deliveries))
    watching = watch_active_games(config, metrics, store, stop)  # METRICS=on: the active games, every 15 s
    metrics_server = start_metrics(config, metrics)
    readiness = health.process_readiness(store, deliveries, ai, list(runners))
    health_server = await health.start(config, readiness, list(runners))

    async def wind_down() -> None:
        """SIGTERM: not ready any more, and no deadline claimed from now on; the platforms stop next."""
        readiness.stopping = True
        stop.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(timers), timeout=5)

    leave_on_sigterm(asyncio.current_task(), wind_down)
    try:
        log.info("serving %s", ", ".join(runners))
        await ai.warm_up()
        await asyncio.gather(
            *(
                as_awaitable(runner(config, service, store, deliveries, live=live, readiness=readiness))
                for runner in runners.values()
            )
        )
        return 0
    except asyncio.CancelledError:
        log.info("stopping")
        return 0
    except Exception as error:
        refusal = refused_token(error)
        if refusal is None:
            raise
        print(refusal, file=sys.stderr)  # one line: the traceback would only repeat the token
        return 2
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(timers, *filter(None, [watching])), timeout=5)
        await ai.aclose()  # every AI worker process has exited when `run` returns
        if metrics_server is not None:
            metrics_server.shutdown()
        if health_server is not None:
            await health_server.cleanup()


def app_platforms(config: BotConfig) -> frozenset[str]:
    """The platforms whose chats offer the web app: Telegram, with WEBAPP_URL and WEBAPP_NAME set; Discord,
    with DISCORD_ACTIVITY=on and its OAuth2 client (docs/discord.md, "The table as an Activity")."""
    offered = {"telegram": config.webapp_on, "discord": config.discord_activity_on}
    return frozenset(PLATFORM_IDS[name] for name, on in offered.items() if on)


REFUSALS = {
    platform.refusal: f"{platform.name.capitalize()} refused the token; check {platform.token_setting}"
    for platform in SERVED_PLATFORMS
}


def refused_token(error: BaseException) -> str | None:
    """The one line to end with when a platform refused its token at start-up, else None. The platforms'
    modules are looked up, not imported: a process serving one platform may not have the other installed."""
    for (module, name), refusal in REFUSALS.items():
        kind = getattr(sys.modules.get(module), name, None)
        if isinstance(kind, type) and isinstance(error, kind):
            return refusal
    return None


class MetricsServer(Protocol):
    def shutdown(self) -> None: ...


def process_metrics(config: BotConfig) -> Metrics:
    """What this process counts: Prometheus's counters with METRICS=on (and prometheus-client installed),
    else the `Metrics` that counts nothing."""
    from bot.runtime.metrics import Metrics, PrometheusMetrics

    if not config.metrics:
        return Metrics()
    try:
        return PrometheusMetrics()
    except ImportError:
        log.error("METRICS=on needs the prometheus-client package (pip install prometheus-client)")
        return Metrics()


def watch_active_games(
    config: BotConfig, metrics: Metrics, store: GameStore, stop: asyncio.Event
) -> asyncio.Task[None] | None:
    """With METRICS=on: a task keeping `durak_active_games` up to date until ``stop``; else None."""
    from bot.runtime import metrics as counted

    if not isinstance(metrics, counted.PrometheusMetrics):
        return None
    platforms = [PLATFORM_IDS[name] for name in config.platforms]
    return asyncio.create_task(counted.watch_active_games(metrics, store, platforms, stop))


def start_metrics(config: BotConfig, metrics: Metrics) -> MetricsServer | None:
    """With METRICS=on: serve the numbers on METRICS_PORT (default 9464), or leave them to the webhook's
    port when the Telegram webhook serves them (`BotConfig.metrics_on_webhook`). The HTTP server we started
    here, or None."""
    from bot.runtime.metrics import PrometheusMetrics

    if not isinstance(metrics, PrometheusMetrics):
        return None
    if config.metrics_on_webhook:
        log.info("metrics on the Telegram webhook's port %d at /metrics", config.port)
        return None
    server: MetricsServer = metrics.serve(config.metrics_port, config.listen_address)
    return server


async def health(config: BotConfig, args: argparse.Namespace) -> int:
    """`durak-bot health`: the container's health check; one line, exit 0 when ready."""
    from bot.runtime.health import probe, probe_host

    ready, line = await asyncio.to_thread(probe, args.port or config.port, probe_host(config.listen_address))
    print(line)
    return 0 if ready else 1


def leave_on_sigterm(
    task: asyncio.Task[Any] | None, first: Callable[[], Coroutine[Any, Any, None]] | None = None
) -> None:
    """A platform (Heroku, systemd, docker stop) stops the bot with SIGTERM: end as cleanly as for Ctrl-C,
    so the embedded Redis is stopped in order and its files are complete. ``first``: what to do before the
    task is cancelled (`serve`'s wind-down); the adapters' own ways out follow from the cancellation."""
    if task is None:
        return
    winding: set[asyncio.Task[None]] = set()  # held while it runs: a task nobody holds may be collected

    def stopping() -> None:
        log.info("SIGTERM: stopping")
        if first is None:
            task.cancel()
            return
        wind_down = asyncio.get_running_loop().create_task(first())
        winding.add(wind_down)
        wind_down.add_done_callback(winding.discard)
        wind_down.add_done_callback(lambda _: task.cancel())

    with contextlib.suppress(NotImplementedError, RuntimeError):  # no signal handlers on Windows
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping)


async def as_awaitable(result: Awaitable[None] | None) -> None:
    """A platform's start function may be a coroutine function or a plain blocking one."""
    if result is not None:
        await result


if __name__ == "__main__":
    sys.exit(main())
