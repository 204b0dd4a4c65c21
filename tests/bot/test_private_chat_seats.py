"""A seat whose person cannot receive private messages: what the service records and draws for it."""

from __future__ import annotations

import pytest

from bot.effects import Message
from bot.i18n import LANGUAGES, translator
from bot.inputs import User
from bot.render.table import describe_event
from bot.session import TableEvent
from storage import ChatRef
from tests.bot.harness import CHAT, Harness, buttons


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_autopilot_line_says_where_to_tap(lang: str) -> None:
    tr = translator(lang)
    text = describe_event(TableEvent(kind="autopilot", seat=0), ["Clara"], tr)
    assert "Clara" in text and tr._("My hand") in text


MARKS = {
    "en": ("must open a private chat with me", "Remove Clara", "Waiting for Clara"),
    "ru": ("должен открыть личный чат со мной", "Убрать Clara", "Ждём, пока Clara"),
    "it": ("deve aprire una chat privata con me", "Togli Clara", "In attesa che Clara"),
}


async def lobby_where_clara_cannot_receive(harness: Harness, lang: str) -> tuple[User, User]:
    ann, clara = User("1", "Ann", lang), User("3", "Clara", lang)
    await harness.command(ann, "newgame")
    await harness.command(clara, "join")
    harness.screen.take(await harness.service.private_chat(ChatRef("tg", CHAT), clara.id, is_open=False))
    return ann, clara


@pytest.mark.parametrize("lang", ["en", "ru", "it"])
async def test_a_seat_that_cannot_receive_is_marked_and_holds_the_start_back(
    harness: Harness, lang: str
) -> None:
    mark, remove, waiting = MARKS[lang]
    ann, _clara = await lobby_where_clara_cannot_receive(harness, lang)
    assert f"Clara · {mark}" in plain(harness.screen.table)
    asked = harness.screen.replies[-1]
    assert "Clara" in asked.plain_text and any(b.opens_private for b in buttons(asked))
    start = next(b for b in buttons(harness.screen.table) if b.payload.endswith("|S"))
    await harness.press(ann, start.payload)
    assert waiting in harness.screen.alerts[-1].text and harness.screen.alerts[-1].show_alert
    assert remove in [b.label for b in buttons(harness.screen.table)]


async def test_a_seat_that_can_receive_again_is_no_longer_marked(harness: Harness) -> None:
    _ann, clara = await lobby_where_clara_cannot_receive(harness, "en")
    harness.screen.take(await harness.service.private_chat(ChatRef("tg", CHAT), clara.id, is_open=True))
    assert "must open" not in plain(harness.screen.table)
    assert "Remove Clara" not in [b.label for b in buttons(harness.screen.table)]


async def test_a_report_about_someone_not_seated_changes_nothing(harness: Harness) -> None:
    await harness.command(User("1", "Ann"), "newgame")
    before = await harness.version()
    assert await harness.service.private_chat(ChatRef("tg", CHAT), "77", is_open=False) == []
    assert await harness.version() == before


def plain(message: Message | None) -> str:
    assert message is not None
    return message.plain_text
