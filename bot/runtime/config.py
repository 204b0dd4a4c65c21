"""The bot's settings, read once in `main()` from the environment and a `.env` file (see `.env.example`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, get_args

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.platforms import SERVED_PLATFORMS

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LogFormat = Literal["plain", "json"]
LOG_FORMATS: tuple[str, ...] = get_args(LogFormat)


def default_ai_workers() -> int:
    """AI worker processes (`AI_WORKERS`): one core for the event loop, the rest for AI; at least one."""
    return max(1, (os.cpu_count() or 1) - 1)


class BotConfig(BaseSettings):
    """Every setting has an environment variable of the same name in capitals (``TELEGRAM_TOKEN``)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    telegram_token: str | None = Field(default=None, repr=False)
    telegram_api_url: str = "https://api.telegram.org"
    webhook_url: str | None = None
    telegram_webhook: bool = False  # `durak-bot run --webhook`: Telegram by webhook (so does WEBHOOK_URL)
    port: int = Field(default=8080, ge=1, le=65535)
    # The address the bot's own HTTP ports listen on (PORT, DISCORD_ACTIVITY_PORT, METRICS_PORT): this host
    # only, for a reverse proxy beside the bot; 0.0.0.0 (or ::) where the proxy is elsewhere (the container
    # image sets it; Heroku's Procfile too).
    listen_address: str = "127.0.0.1"
    webhook_secret: str | None = Field(default=None, repr=False)
    webapp_url: str | None = None  # the Mini App's page (public https); with WEBAPP_NAME the app is on
    webapp_name: str | None = None  # the Mini App's short name, as @BotFather's /newapp set it
    discord_token: str | None = Field(default=None, repr=False)
    discord_activity: bool = False  # the table as a Discord Activity (docs/discord.md, "The Activity")
    discord_client_id: str | None = None  # the application's id: the Activity's OAuth2 client
    discord_client_secret: str | None = Field(default=None, repr=False)
    discord_activity_port: int = Field(default=8081, ge=1, le=65535)  # the page the URL mapping points at
    discord_api_url: str = "https://discord.com/api/v10"  # OAuth2 and activity instances (tests: a fake)
    redis_url: str | None = Field(default=None, repr=False)
    data_dir: Path = Path("./data")
    ai_delay: float = Field(default=1.2, ge=0, le=60)
    ai_workers: int = Field(default_factory=default_ai_workers, ge=1, le=256)
    ai_deadline_ms: int = Field(default=1500, ge=50, le=60_000)  # then the normal level's move instead
    start_wait: float = Field(default=60.0, ge=0)
    log_level: str = "INFO"
    log_format: LogFormat = "plain"
    metrics: bool = False
    metrics_port: int = Field(default=9464, ge=1, le=65535)
    telegram_cache_chats: int = Field(default=20_000, ge=100)  # chats whose message ids stay in memory
    telegram_cache_users: int = Field(default=50_000, ge=100)  # users whose name and language stay in memory
    telegram_repost_after: int = Field(default=10, ge=0)  # a table with more messages after it moves down
    telegram_table_every: float = Field(default=8.0, ge=0, le=60)  # s between a running game's table edits
    stop_timeout: float = Field(default=10.0, ge=0, le=300)  # seconds queued messages get on SIGTERM

    @field_validator(
        "telegram_token",
        "discord_token",
        "discord_client_id",
        "discord_client_secret",
        "redis_url",
        "webhook_url",
        "webhook_secret",
        "webapp_url",
        "webapp_name",
    )
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        """``TELEGRAM_TOKEN=`` in a copied .env means "not set", not an empty token."""
        return value.strip() or None if value is not None else None

    @field_validator("ai_workers", mode="before")
    @classmethod
    def _blank_is_default(cls, value: object) -> object:
        """``AI_WORKERS=`` (as in .env.example) means "as many as the cores allow"."""
        return default_ai_workers() if isinstance(value, str) and not value.strip() else value

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {value!r}")
        return level

    @field_validator("log_format", mode="before")
    @classmethod
    def _known_format(cls, value: object) -> object:
        """``LOG_FORMAT=JSON`` is as good as ``json``; anything else is refused by name, not ignored."""
        text = str(value).strip().lower()
        if text not in LOG_FORMATS:
            raise ValueError(f"LOG_FORMAT must be one of {', '.join(LOG_FORMATS)}, not {value!r}")
        return text

    @field_validator("webhook_secret")
    @classmethod
    def _telegram_secret_charset(cls, value: str | None) -> str | None:
        """Telegram accepts 1-256 characters A-Z, a-z, 0-9, _ and - as a webhook secret token."""
        if value is None:
            return None
        if not 1 <= len(value) <= 256 or any(not (c.isascii() and (c.isalnum() or c in "_-")) for c in value):
            raise ValueError("WEBHOOK_SECRET takes 1-256 characters: letters, digits, _ and -")
        return value

    @field_validator("webapp_name")
    @classmethod
    def _app_short_name(cls, value: str | None) -> str | None:
        """@BotFather takes a Mini App short name of 3-30 letters, digits and underscores."""
        if value is None:
            return None
        if not 3 <= len(value) <= 30 or any(not (c.isascii() and (c.isalnum() or c == "_")) for c in value):
            raise ValueError("WEBAPP_NAME is the app's short name: 3-30 letters, digits and _")
        return value

    @property
    def webapp_on(self) -> bool:
        """The Telegram Mini App is offered (its buttons, its sign-in): WEBAPP_URL and WEBAPP_NAME are set,
        beside a Telegram token."""
        return bool(self.telegram_token and self.webapp_url and self.webapp_name)

    @property
    def discord_activity_on(self) -> bool:
        """The Discord Activity is offered (its "Open table" buttons, its sign-in): DISCORD_ACTIVITY=on with
        the application's OAuth2 client, beside a Discord token."""
        return bool(
            self.discord_activity
            and self.discord_token
            and self.discord_client_id
            and self.discord_client_secret
        )

    @property
    def platforms(self) -> list[str]:
        """The platforms `durak-bot run` would serve, by the tokens given."""
        return [platform.name for platform in SERVED_PLATFORMS if platform.token(self)]

    @property
    def telegram_holds_port(self) -> bool:
        """Serving Telegram, the bot listens on PORT itself: its webhook server, or the Mini App's pages."""
        return bool(self.telegram_token and (self.telegram_webhook or self.webhook_url or self.webapp_on))

    @property
    def metrics_on_webhook(self) -> bool:
        """With ``METRICS=on`` and a Telegram webhook, ``/metrics`` is served on the webhook's port (PORT),
        the one port a platform such as Heroku opens; otherwise on its own port, ``METRICS_PORT``."""
        return self.metrics and bool(self.telegram_token and self.webhook_url)
