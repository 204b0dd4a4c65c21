"""The service, not each adapter, decides who may take a seat from outside the chat and tells a lobby's
creator where their cards will come (issue 42: adapters held these rules themselves).

A press from the page or a deep link (`Press.from_app`, `Press.through_private`) that would seat its presser
needs the platform's membership check (`GameService.handle(..., membership=...)`) to say yes; a press made in
the chat itself is never asked. On a platform where the bot cannot write first (Telegram), /newgame in a group
writes to its creator at once (`bot.game.lobby.lobby_opened`)."""

from __future__ import annotations

from bot.effects import Alert, Effect, Reply, ShowTable
from bot.inputs import Command, Press, User
from bot.platforms import DISCORD
from storage import ChatRef
from storage.store import RedisGameStore
from tests.bot.conftest import ANN, BOB
from tests.bot.harness import Harness, button

asked: list[tuple[ChatRef, str]] = []


async def nobody_is_a_member(chat: ChatRef, user_id: str) -> bool:
    asked.append((chat, user_id))
    return False


async def everyone_is_a_member(chat: ChatRef, user_id: str) -> bool:
    return True


async def join_payload(harness: Harness) -> str:
    await harness.command(ANN, "newgame")
    assert harness.screen.table is not None
    return button(harness.screen.table, "Join").payload


def seated(effects: list[Effect], user: User) -> bool:
    return any(isinstance(e, ShowTable) and user.name in e.message.plain_text for e in effects)


async def test_a_join_from_the_page_by_a_non_member_is_refused_by_the_service(harness: Harness) -> None:
    payload = await join_payload(harness)
    press = Press(harness.platform, BOB, payload, from_app=True)
    effects = await harness.service.handle(press, membership=nobody_is_a_member)
    assert [e.text for e in effects if isinstance(e, Alert)] == [
        "Only members of this chat can join its games."
    ]
    assert not seated(effects, BOB)
    assert asked[-1] == (ChatRef(harness.platform, harness.chat), BOB.id)


async def test_a_join_through_a_deep_link_by_a_member_takes_the_seat(harness: Harness) -> None:
    payload = await join_payload(harness)
    press = Press(harness.platform, BOB, payload, through_private=True)
    assert seated(await harness.service.handle(press, membership=everyone_is_a_member), BOB)


async def test_a_join_pressed_in_the_chat_itself_is_never_asked_about(harness: Harness) -> None:
    payload = await join_payload(harness)
    before = len(asked)
    effects = await harness.service.handle(
        Press(harness.platform, BOB, payload), membership=nobody_is_a_member
    )
    assert seated(effects, BOB) and len(asked) == before


async def test_newgame_in_a_telegram_group_writes_to_its_creator_at_once(harness: Harness) -> None:
    effects = await harness.command(ANN, "newgame", chat_title="Club")
    replies = [e for e in effects if isinstance(e, Reply) and e.private]
    assert [(r.user_id, r.message.plain_text) for r in replies] == [
        (ANN.id, "Your lobby in Club is open; your cards will come here.")
    ]


async def test_newgame_in_a_private_chat_or_on_discord_writes_nothing_more(fake_redis: object) -> None:
    telegram = Harness(RedisGameStore(fake_redis))  # type: ignore[arg-type]
    alone = await telegram.service.handle(
        Command(telegram.platform, ANN.id, ANN, "newgame", "", private=True)
    )
    discord = Harness(RedisGameStore(fake_redis), platform=DISCORD)  # type: ignore[arg-type]
    group = await discord.command(ANN, "newgame", chat_title="Club")
    for effects in (alone, group):
        assert not [e for e in effects if isinstance(e, Reply) and e.private]
