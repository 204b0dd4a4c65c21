"""The platforms, declared once: their ids, and those `durak-bot run` can serve, read by the entry point
(cli/main.py), the configuration (`BotConfig.platforms`), the masking of secrets in logs
(bot/runtime/redact.py) and the adapters' contract (`bot.adapter`). Data only: a platform's code is imported
when it is served."""

from __future__ import annotations

from dataclasses import dataclass

# The platform ids, each spelled here only: part of every chat's Redis keys (`ChatRef.platform`), so short
# and never changed once chats are stored under them.
TELEGRAM = "tg"
DISCORD = "dc"
LOCAL = "local"  # the terminal (`durak-bot play`)
PLATFORMS = (TELEGRAM, DISCORD, LOCAL)  # the platforms whose deadlines a worker claims unless told otherwise


@dataclass(frozen=True, slots=True)
class ServedPlatform:
    """A platform `durak-bot run` can serve: read by the entry point (cli/main.py), the configuration
    (`BotConfig.platforms`) and the masking of secrets in logs (bot/runtime/redact.py)."""

    id: str  # the platform id above
    name: str  # how `durak-bot run` and `BotConfig.platforms` name it: "telegram"
    module: str  # imported only when served: an installation may lack the other platforms' libraries
    entry: str  # the module's `RunPlatform` function
    token_setting: str  # the environment variable holding the token
    token_field: str  # the `BotConfig` field holding the token
    token_help: str  # where to get a token, for `durak-bot run` without any
    refusal: tuple[str, str]  # (module, exception) raised when the platform refuses the token at start
    # the bot may send a private message to someone who never wrote to it (Telegram: no, until they open the
    # private chat; the lobby's creator is then told at once where their cards will come, `lobby_opened`)
    writes_first: bool = True

    def token(self, config: object) -> str | None:
        """The token as ``config`` (a `BotConfig`) holds it, None when unset."""
        value = getattr(config, self.token_field)
        return value if isinstance(value, str) and value else None


SERVED_PLATFORMS: tuple[ServedPlatform, ...] = (
    ServedPlatform(
        id=TELEGRAM,
        name="telegram",
        module="adapters.telegram.app",
        entry="run_telegram",
        token_setting="TELEGRAM_TOKEN",
        token_field="telegram_token",
        token_help="the token @BotFather gives you (https://t.me/BotFather, /newbot)",
        refusal=("telegram.error", "InvalidToken"),
        writes_first=False,
    ),
    ServedPlatform(
        id=DISCORD,
        name="discord",
        module="adapters.discord.app",
        entry="run_discord",
        token_setting="DISCORD_TOKEN",
        token_field="discord_token",
        token_help="the bot token of your application (https://discord.com/developers/applications)",
        refusal=("discord.errors", "LoginFailure"),
    ),
)


def writes_first(platform: str) -> bool:
    """Whether the bot may write first to a person on ``platform`` (an id above); the terminal and
    any platform not served here: yes."""
    return next((served.writes_first for served in SERVED_PLATFORMS if served.id == platform), True)
