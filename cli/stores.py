"""Where the commands find their games: the configured Redis, or the embedded one and the terminal's data."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bot.runtime.config import BotConfig

if TYPE_CHECKING:
    from storage.store import GameStore


def local_data_dir(config: BotConfig) -> Path:
    """Terminal games keep their own embedded Redis, so a bot running from the same folder never claims a
    terminal game's AI timers (nor the terminal a chat's)."""
    return config.data_dir / "local"


async def open_store_or_explain(
    redis_url: str | None, data_dir: Path
) -> tuple[GameStore, Callable[[], Awaitable[None]]] | None:
    """The store and its close function; None (after saying why) when the embedded Redis cannot start."""
    from storage.connect import open_store
    from storage.redis_url import InvalidRedisUrl

    try:
        return await open_store(redis_url, data_dir)
    except InvalidRedisUrl as error:
        print(error, file=sys.stderr)
        return None
    except (OSError, RuntimeError) as error:
        print(f"Could not start the embedded Redis in {data_dir}: {error}", file=sys.stderr)
        return None
