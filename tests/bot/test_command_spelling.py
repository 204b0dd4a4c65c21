"""A reply that names a command names it as the platform that asked offers it: typed on Telegram
(``/leave``), a subcommand of ``/durak`` on Discord (``/durak leave``, ``/durak new`` for /newgame)."""

from __future__ import annotations

import pytest

from bot import platforms
from bot.effects import Effect, Reply
from storage import ChatRef
from storage import keys as k
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import CHAT, Harness, buttons
from tests.bot.stacked import stacked_game

ON_EACH_PLATFORM = pytest.mark.parametrize("platform", [platforms.TELEGRAM, platforms.DISCORD])
# the command each platform offers, by the name /help gives it on Telegram
SPELLED = {
    platforms.TELEGRAM: {"newgame": "/newgame", "leave": "/leave", "help": "/help", "settings": "/settings"},
    platforms.DISCORD: {
        "newgame": "/durak new",
        "leave": "/durak leave",
        "help": "/durak help",
        "settings": "/durak settings",
    },
}


def on(fake_redis: object, platform: str, chat: str = CHAT) -> Harness:
    return Harness(RedisGameStore(fake_redis), platform=platform, chat=chat)  # type: ignore[arg-type]


def replies(effects: list[Effect]) -> list[str]:
    return [effect.message.plain_text for effect in effects if isinstance(effect, Reply)]


@ON_EACH_PLATFORM
async def test_the_expired_surrender_confirmation_names_leave(fake_redis: object, platform: str) -> None:
    harness = on(fake_redis, platform)
    await stacked_game(harness, (ANN, BOB), ["6S 7S 8S 9S TS JS", "6C 7C 8C 9C TC JC"], trump="AS")
    asked = [e for e in await harness.command(BOB, "leave") if isinstance(e, Reply)]
    harness.clock += 31
    await harness.press(BOB, buttons(asked[0].message)[0].payload)
    leave = SPELLED[platform]["leave"]
    expected = f"This confirmation has expired: send {leave} again if you still want to surrender."
    assert harness.screen.alerts[-1].text == expected


@ON_EACH_PLATFORM
async def test_a_lobby_button_typed_without_a_lobby_names_newgame(fake_redis: object, platform: str) -> None:
    harness = on(fake_redis, platform)
    await harness.command(ANN, "join")
    expected = f"There is no open lobby. Start one with {SPELLED[platform]['newgame']}."
    assert harness.screen.replies[-1].plain_text == expected


@ON_EACH_PLATFORM
async def test_hint_without_a_practice_game_names_newgame(fake_redis: object, platform: str) -> None:
    private = on(fake_redis, platform, chat=ANN.id)
    await private.command(ANN, "hint", private=True)
    newgame = SPELLED[platform]["newgame"]
    expected = f"Hints are for practice games against the AI: start one here with {newgame}."
    assert private.screen.replies[-1].plain_text == expected


@ON_EACH_PLATFORM
async def test_an_unknown_command_names_help(fake_redis: object, platform: str) -> None:
    harness = on(fake_redis, platform)
    await harness.command(ANN, "tango")
    assert harness.screen.replies[-1].plain_text == f"Unknown command. Try {SPELLED[platform]['help']}."


@ON_EACH_PLATFORM
async def test_a_game_set_aside_names_newgame(fake_redis: object, platform: str) -> None:
    harness = on(fake_redis, platform)
    chat = ChatRef(platform, CHAT)
    await harness.store.redis.set(k.version_key(chat), 7)
    await harness.store.redis.set(k.state_key(chat), b"\x80\xff not a game", ex=3600)
    effects = await harness.command(ANN, "rules")
    newgame = SPELLED[platform]["newgame"]
    expected = (
        f"The game in this chat could not be restored, so it was set aside. Start a new one with {newgame}."
    )
    assert expected in replies(effects)


@ON_EACH_PLATFORM
async def test_dropped_chat_defaults_name_settings(fake_redis: object, platform: str) -> None:
    harness = on(fake_redis, platform)
    await harness.store.redis.hset(k.meta_key(ChatRef(platform, CHAT)), "words", "transfer bogus")
    effects = await harness.command(ANN, "rules")
    (notice,) = [text for text in replies(effects) if "dropped" in text]
    assert notice.endswith(f"An admin can set new ones with {SPELLED[platform]['settings']}.")
