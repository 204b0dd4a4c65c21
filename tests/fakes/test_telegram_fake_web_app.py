"""The fake Bot API takes Mini App buttons as Telegram does: ``web_app`` only in a private chat and only
with an https page; a group links to the app with a URL button instead. Driven by the real PTB client."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.error import BadRequest

from tests.fakes.telegram_api import FakeTelegram

PAGE = "https://durak.example.net/app?ref=-100_k3"


def app_button(url: str = PAGE) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("Open table", web_app=WebAppInfo(url=url))]])


@pytest.fixture
async def bot(telegram_api: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(telegram_api.token, base_url=telegram_api.bot_base_url) as client:
        yield client


async def test_a_web_app_button_in_a_private_chat_is_kept_and_tapping_it_gives_its_page(
    telegram_api: FakeTelegram, bot: Bot
) -> None:
    ann = telegram_api.add_user("Ann")
    telegram_api.user_starts(ann)
    sent = await bot.send_message(ann.id, "Your cards", reply_markup=app_button())
    assert telegram_api.message(ann, sent.message_id).buttons() == [
        {"text": "Open table", "web_app": {"url": PAGE}}
    ]
    assert telegram_api.press_button(ann, sent.message_id, ann, "Open table") == PAGE


async def test_a_web_app_button_in_a_group_is_refused(telegram_api: FakeTelegram, bot: Bot) -> None:
    group = telegram_api.add_group("Durak club")
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.send_message(group.id, "Table", reply_markup=app_button())
    sent = await bot.send_message(group.id, "Table")
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.edit_message_text("Table", group.id, sent.message_id, reply_markup=app_button())
    with pytest.raises(BadRequest, match="Button_type_invalid"):
        await bot.edit_message_reply_markup(group.id, sent.message_id, reply_markup=app_button())


async def test_a_web_app_page_that_is_not_https_is_refused(telegram_api: FakeTelegram, bot: Bot) -> None:
    ann = telegram_api.add_user("Ann")
    telegram_api.user_starts(ann)
    with pytest.raises(BadRequest, match="(?i)only https links are allowed"):
        await bot.send_message(ann.id, "Your cards", reply_markup=app_button("http://durak.example.net/app"))


async def test_a_group_links_to_the_app_by_its_short_name(telegram_api: FakeTelegram, bot: Bot) -> None:
    group = telegram_api.add_group("Durak club")
    link = f"https://t.me/{telegram_api.bot_username}/table?startapp=-100_k3"
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Open table", url=link)]])
    sent = await bot.send_message(group.id, "Table", reply_markup=markup)
    assert telegram_api.message(group, sent.message_id).buttons() == [{"text": "Open table", "url": link}]
    telegram_api.assert_no_bad_requests()
