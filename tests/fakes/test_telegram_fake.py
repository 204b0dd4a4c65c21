"""The fake Telegram Bot API, driven by the real python-telegram-bot v22 client over HTTP on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest
from telegram import (
    Bot,
    ChatMemberAdministrator,
    ChatMemberBanned,
    ChatMemberLeft,
    ChatMemberOwner,
    ChatMemberRestricted,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Conflict, Forbidden, RetryAfter
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from tests.fakes.telegram_api import Clock, FakeTelegram


def keyboard(*buttons: tuple[str, str]) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(label, callback_data=data) for label, data in buttons]]
    )


def application(fake: FakeTelegram) -> Application:
    builder = Application.builder().token(fake.token)
    return builder.base_url(fake.bot_base_url).base_file_url(fake.file_base_url).build()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
async def bot(telegram_api: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(telegram_api.token, base_url=telegram_api.bot_base_url) as client:
        yield client


async def test_sent_html_message_is_stored_as_users_see_it(telegram_api: FakeTelegram, bot: Bot) -> None:
    ann = telegram_api.add_user("Ann")
    telegram_api.user_starts(ann)
    sent = await bot.send_message(ann.id, "<b>Trump</b> &lt;7♠&gt;", parse_mode=ParseMode.HTML,
                                  reply_markup=keyboard(("Take", "t:1")))  # fmt: skip
    assert sent.text == "Trump <7♠>" and sent.entities[0].type == "bold" and sent.entities[0].length == 5
    assert sent.reply_markup is not None and sent.reply_markup.inline_keyboard[0][0].callback_data == "t:1"
    stored = telegram_api.message(ann, sent.message_id)
    assert (stored.text, stored.from_bot, stored.buttons()[0]["text"]) == ("Trump <7♠>", True, "Take")


async def test_edit_replaces_text_and_keeps_history(telegram_api: FakeTelegram, bot: Bot) -> None:
    group = telegram_api.add_group("Durak club")
    sent = await bot.send_message(group.id, "Lobby", reply_markup=keyboard(("Join", "j")))
    edited = await bot.edit_message_text(
        "Table", group.id, sent.message_id, reply_markup=keyboard(("Go", "g"))
    )
    assert edited.text == "Table" and edited.edit_date is not None
    assert [version.plain for version in telegram_api.message(group, sent.message_id).versions] == [
        "Lobby",
        "Table",
    ]
    assert telegram_api.group_texts(group) == ["Lobby", "Join", "Table", "Go"]


async def test_edit_without_markup_removes_the_keyboard_like_telegram(
    telegram_api: FakeTelegram, bot: Bot
) -> None:
    group = telegram_api.add_group("Durak club")
    sent = await bot.send_message(group.id, "Lobby", reply_markup=keyboard(("Join", "j")))
    await bot.edit_message_text("Lobby closed", group.id, sent.message_id)
    assert telegram_api.message(group, sent.message_id).buttons() == []


async def test_edit_that_changes_nothing_is_a_bad_request(telegram_api: FakeTelegram, bot: Bot) -> None:
    group = telegram_api.add_group("Durak club")
    sent = await bot.send_message(
        group.id, "<b>Table</b>", parse_mode="HTML", reply_markup=keyboard(("Go", "g"))
    )
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text("<strong>Table</strong>", group.id, sent.message_id, parse_mode="HTML",
                                    reply_markup=keyboard(("Go", "g")))  # fmt: skip
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_reply_markup(group.id, sent.message_id, reply_markup=keyboard(("Go", "g")))
    await bot.edit_message_text(
        "Table", group.id, sent.message_id, reply_markup=keyboard(("Go", "g"))
    )  # not bold
    with pytest.raises(AssertionError, match="2 Bad Request"):
        telegram_api.assert_no_bad_requests()


async def test_user_who_never_started_the_bot_is_forbidden(telegram_api: FakeTelegram, bot: Bot) -> None:
    bob = telegram_api.add_user("Bob")
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(bob.id, "Your hand")
    telegram_api.user_starts(bob)
    await bot.send_message(bob.id, "Your hand")
    telegram_api.user_blocks(bob)
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(bob.id, "Your hand")
    telegram_api.assert_no_bad_requests()  # 403s are not the bot's mistakes


async def test_telegram_validation_errors_are_bad_requests(telegram_api: FakeTelegram, bot: Bot) -> None:
    group = telegram_api.add_group("Durak club")
    with pytest.raises(BadRequest, match="Button_data_invalid"):
        await bot.send_message(group.id, "Table", reply_markup=keyboard(("Go", "x" * 65)))
    with pytest.raises(BadRequest, match="Message is too long"):
        await bot.send_message(group.id, "x" * 4097)
    with pytest.raises(BadRequest, match="Can't parse entities"):
        await bot.send_message(group.id, "<b>Ann & Bob</b>", parse_mode="HTML")
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(-42, "Table")
    await bot.send_message(group.id, "é" * 4096, reply_markup=keyboard(("Go", "€" * 21)))  # 63 bytes
    assert len(telegram_api.errors) == 4 and telegram_api.calls["sendMessage"] == 5


async def test_group_flood_limit_answers_retry_after(telegram_api: FakeTelegram, bot: Bot) -> None:
    group = telegram_api.add_group("Durak club")
    sent = await bot.send_message(group.id, "Table 0")
    for number in range(1, 20):  # one send and 19 edits: 20 messages in the minute
        await bot.edit_message_text(f"Table {number}", group.id, sent.message_id)
    with pytest.raises(RetryAfter) as raised:
        await bot.edit_message_text("Table 20", group.id, sent.message_id)
    assert raised.value.retry_after == 60
    assert telegram_api.max_group_messages_per_minute(group) == 20
    telegram_api.clock.advance(60)
    await bot.edit_message_text("Table 20", group.id, sent.message_id)
    assert telegram_api.max_group_messages_per_minute(group) == 20
    assert len(telegram_api.rate_limited) == 1


async def test_rate_limits_are_configurable_and_private_chats_only_recorded(
    telegram_api: FakeTelegram, bot: Bot
) -> None:
    telegram_api.limits.group_per_window = 3
    group, ann = telegram_api.add_group("Durak club"), telegram_api.add_user("Ann")
    telegram_api.user_starts(ann)
    for _ in range(3):
        await bot.send_message(group.id, "Hello")
    telegram_api.clock.advance(30)
    with pytest.raises(RetryAfter) as raised:
        await bot.send_message(group.id, "Hello")
    assert raised.value.retry_after == 30
    for _ in range(5):
        await bot.send_message(ann.id, "Your hand")
    assert telegram_api.max_messages_in_window(ann, 1.0) == 5


async def test_overall_limit_counts_every_chat(telegram_api: FakeTelegram, bot: Bot) -> None:
    telegram_api.limits.global_per_second = 2
    first, second = telegram_api.add_group("One"), telegram_api.add_group("Two")
    await bot.send_message(first.id, "Table")
    await bot.send_message(second.id, "Table")
    with pytest.raises(RetryAfter) as raised:
        await bot.send_message(first.id, "Table")
    assert raised.value.retry_after == 1
    telegram_api.clock.advance(1)
    await bot.send_message(first.id, "Table")


async def test_watchers_see_every_message_written_but_not_one_refused(
    telegram_api: FakeTelegram, bot: Bot
) -> None:
    seen: list[tuple[int, int, bool]] = []  # (message id, versions, deleted) when the watcher was told
    telegram_api.watchers.append(lambda m: seen.append((m.message_id, len(m.versions), m.deleted)))
    telegram_api.limits.group_per_window = 2
    group = telegram_api.add_group("Durak club")
    sent = await bot.send_message(group.id, "Table", reply_markup=keyboard(("Go", "g")))
    await bot.edit_message_text("Table 1", group.id, sent.message_id)
    with pytest.raises(BadRequest):  # not modified: nothing written
        await bot.edit_message_text("Table 1", group.id, sent.message_id)
    with pytest.raises(RetryAfter):  # over the limit: nothing written
        await bot.edit_message_text("Table 2", group.id, sent.message_id)
    await bot.delete_message(group.id, sent.message_id)
    one = sent.message_id
    assert seen == [(one, 1, False), (one, 2, False), (one, 2, True)]


async def test_migrated_group_points_to_its_supergroup(telegram_api: FakeTelegram, bot: Bot) -> None:
    ann = telegram_api.add_user("Ann")
    old = telegram_api.add_group("Durak club", [ann], kind="group")
    new = telegram_api.migrate_group(old)
    with pytest.raises(ChatMigrated) as raised:
        await bot.send_message(old.id, "Table")
    assert raised.value.new_chat_id == new.id
    await bot.send_message(new.id, "Table")
    assert [u["message"].get("migrate_to_chat_id") for u in telegram_api.pending] == [new.id, None]


async def test_admin_checks_see_owner_and_administrators(telegram_api: FakeTelegram, bot: Bot) -> None:
    ann, bob, cid = (telegram_api.add_user(name) for name in ("Ann", "Bob", "Cid"))
    group = telegram_api.add_group("Durak club", [cid], admins=[bob], owner=ann)
    assert isinstance(await bot.get_chat_member(group.id, ann.id), ChatMemberOwner)
    assert isinstance(await bot.get_chat_member(group.id, bob.id), ChatMemberAdministrator)
    assert (await bot.get_chat_member(group.id, cid.id)).status == "member"
    assert {member.user.id for member in await bot.get_chat_administrators(group.id)} == {ann.id, bob.id}
    assert (await bot.get_chat(group.id)).title == "Durak club"


async def test_membership_answers_tell_members_from_people_who_left_or_were_banned(
    telegram_api: FakeTelegram, bot: Bot
) -> None:
    ann, bob, cid, dan, eve = (telegram_api.add_user(name) for name in ("Ann", "Bob", "Cid", "Dan", "Eve"))
    group = telegram_api.add_group("Durak club", [ann])
    telegram_api.restrict(group, bob)
    telegram_api.restrict(group, cid, is_member=False)
    group.members[dan.id] = "kicked"
    bob_is, cid_is = await bot.get_chat_member(group.id, bob.id), await bot.get_chat_member(group.id, cid.id)
    assert isinstance(bob_is, ChatMemberRestricted) and bob_is.is_member
    assert isinstance(cid_is, ChatMemberRestricted) and not cid_is.is_member
    assert isinstance(await bot.get_chat_member(group.id, dan.id), ChatMemberBanned)
    assert isinstance(await bot.get_chat_member(group.id, eve.id), ChatMemberLeft)  # never in the group


async def test_commands_are_kept_per_language(telegram_api: FakeTelegram, bot: Bot) -> None:
    await bot.set_my_commands([("newgame", "Start a game")])
    await bot.set_my_commands([("newgame", "Новая игра")], language_code="ru")
    assert [c.description for c in await bot.get_my_commands(language_code="ru")] == ["Новая игра"]
    assert telegram_api.commands_for("") == [{"command": "newgame", "description": "Start a game"}]
    assert await bot.get_my_commands(language_code="it") == ()


async def test_deep_link_starts_private_chat_and_invalid_payload_is_dropped(
    telegram_api: FakeTelegram,
) -> None:
    ann, bob = telegram_api.add_user("Ann"), telegram_api.add_user("Bob")
    telegram_api.user_opens_link(ann, "https://t.me/durak_test_bot?start=join_g1-v2")
    telegram_api.user_opens_link(bob, "https://t.me/durak_test_bot?start=bad payload!")
    texts = [update["message"]["text"] for update in telegram_api.pending]
    assert texts == ["/start join_g1-v2", "/start"] and ann.started and bob.started


async def test_callback_answer_after_the_timeout_is_refused(telegram_api: FakeTelegram, bot: Bot) -> None:
    ann = telegram_api.add_user("Ann")
    telegram_api.user_starts(ann)
    sent = await bot.send_message(ann.id, "Hand", reply_markup=keyboard(("7♠", "p:7S")))
    early = telegram_api.user_presses(ann, sent.message_id, ann, "p:7S")
    late = telegram_api.user_presses(ann, sent.message_id, ann, "p:7S")
    assert await bot.answer_callback_query(early, "Played")
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(early)  # twice
    telegram_api.clock.advance(16)
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(late)
    with pytest.raises(LookupError):
        telegram_api.user_presses(ann, sent.message_id, ann, "p:AS")  # no such button on the message
    assert telegram_api.unanswered_queries() == [late]


async def test_application_gets_commands_and_presses_by_long_polling(telegram_api: FakeTelegram) -> None:
    ann = telegram_api.add_user("Ann")
    group = telegram_api.add_group("Durak club", [ann])
    seen: list[int] = []

    async def on_newgame(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        seen.append(update.update_id)  # type: ignore[attr-defined]
        await update.effective_chat.send_message("Lobby", reply_markup=keyboard(("Join", "join")))  # type: ignore[attr-defined]

    async def on_press(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        await update.callback_query.answer(f"Joined {update.callback_query.data}")  # type: ignore[attr-defined]

    app = application(telegram_api)
    app.add_handler(CommandHandler("newgame", on_newgame))
    app.add_handler(CallbackQueryHandler(on_press))
    async with app:
        await app.start()
        await app.updater.start_polling(poll_interval=0.0, timeout=5)  # type: ignore[union-attr]
        first = telegram_api.user_sends(group, ann, "/newgame@durak_test_bot transfer", duplicate=True)
        await telegram_api.wait_until(lambda: len(telegram_api.bot_messages(group)) == 2, what="two lobbies")
        lobby = telegram_api.bot_messages(group)[0]
        query = telegram_api.user_presses(group, lobby.message_id, ann, "join")
        answer = await telegram_api.wait_for_answer(query)
        await app.updater.stop()  # type: ignore[union-attr]
        await app.stop()
    assert seen == [first["update_id"]] * 2  # the redelivered update reached the handler again
    assert (answer.text, answer.user_id) == ("Joined join", ann.id) and answer.delay < 1.0
    methods = [record.method for record in telegram_api.call_log]
    assert methods[:3] == ["getMe", "deleteWebhook", "getUpdates"]
    assert telegram_api.pending == []  # PTB confirmed every update when it stopped
    telegram_api.assert_no_bad_requests()


async def test_application_gets_updates_by_webhook_with_secret_token(telegram_api: FakeTelegram) -> None:
    ann = telegram_api.add_user("Ann")
    waiting = telegram_api.user_starts(ann)["update_id"]  # queued before the webhook exists
    commands: list[int] = []
    answers: list[str] = []

    async def on_command(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        commands.append(update.update_id)  # type: ignore[attr-defined]

    async def on_press(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        answers.append(update.callback_query.data)  # type: ignore[attr-defined]
        await update.callback_query.answer()  # type: ignore[attr-defined]

    app = application(telegram_api)
    app.add_handler(CommandHandler(["start", "stats"], on_command))
    app.add_handler(CallbackQueryHandler(on_press))
    port = free_port()
    async with app:
        await app.start()
        await app.updater.start_webhook(  # type: ignore[union-attr]
            listen="127.0.0.1", port=port, url_path="tg", webhook_url=f"http://127.0.0.1:{port}/tg",
            secret_token="s3cret-Token_1",
        )  # fmt: skip
        webhook = {
            "url": f"http://127.0.0.1:{port}/tg",
            "secret_token": "s3cret-Token_1",
            "max_connections": 40,
        }
        assert telegram_api.webhook == webhook
        again = telegram_api.user_sends(ann, ann, "/stats", duplicate=True)["update_id"]
        await telegram_api.wait_until(lambda: len(commands) == 3, what="/start and /stats twice")
        sent = await app.bot.send_message(ann.id, "Hand", reply_markup=keyboard(("7♠", "p:7S")))
        query = telegram_api.user_presses(ann, sent.message_id, ann, "p:7S")
        await telegram_api.wait_for_answer(query)
        update = telegram_api.all_updates[max(telegram_api.all_updates)]
        assert await telegram_api.post_to_webhook(update, secret_token="wrong") == 403
        assert await telegram_api.post_to_webhook(update, secret_token=None) == 403
        with pytest.raises(Conflict, match="webhook is active"):
            await app.bot.get_updates()
        await app.updater.stop()  # type: ignore[union-attr]
        await app.stop()
    assert sorted(commands) == [waiting, again, again] and answers == ["p:7S"]
    delivered = [status for _, status in telegram_api.webhook_deliveries if status]  # 0: port not open yet
    assert delivered == [200, 200, 200, 200, 403, 403] and telegram_api.pending == []
    assert telegram_api.calls["setWebhook"] == 1 and telegram_api.calls["getUpdates"] == 1


async def test_get_updates_long_polls_and_forgets_what_the_offset_confirmed(
    telegram_api: FakeTelegram, bot: Bot
) -> None:
    ann = telegram_api.add_user("Ann")
    first = telegram_api.user_starts(ann)["update_id"]
    assert [u.update_id for u in await bot.get_updates()] == [first]
    assert [u.update_id for u in await bot.get_updates()] == [first]  # not confirmed yet
    assert await bot.get_updates(offset=first + 1, timeout=1) == ()  # waited, then nothing
    waiting = asyncio.create_task(bot.get_updates(offset=first + 1, timeout=5))
    await telegram_api.wait_until(lambda: telegram_api.calls["getUpdates"] == 4, what="a waiting long poll")
    second = telegram_api.user_sends(ann, ann, "/stats")["update_id"]
    updates = await asyncio.wait_for(waiting, 2)
    assert [(u.update_id, u.message.text) for u in updates] == [(second, "/stats")]
    assert updates[0].message.entities[0].type == "bot_command"


async def test_forum_topic_messages_keep_their_thread(telegram_api: FakeTelegram, bot: Bot) -> None:
    ann = telegram_api.add_user("Ann")
    forum, plain = telegram_api.add_group("Forum", [ann], forum=True), telegram_api.add_group("Plain", [ann])
    update = telegram_api.user_sends(forum, ann, "/newgame", thread_id=7)
    assert update["message"]["message_thread_id"] == 7 and update["message"]["is_topic_message"]
    sent = await bot.send_message(forum.id, "Lobby", message_thread_id=7)
    assert sent.message_thread_id == 7 and telegram_api.message(forum, sent.message_id).thread_id == 7
    elsewhere = await bot.send_message(plain.id, "Lobby", message_thread_id=7)
    assert telegram_api.message(plain, elsewhere.message_id).thread_id is None


async def test_fast_clock_speeds_up_rate_windows_but_not_answer_deadlines(
    telegram_api: FakeTelegram, bot: Bot
) -> None:
    telegram_api.clock = Clock(speed=600.0)  # a virtual minute every 0.1 s
    telegram_api.limits.group_per_window = 2
    group, ann = telegram_api.add_group("Durak club"), telegram_api.add_user("Ann")
    sent = await bot.send_message(group.id, "Table", reply_markup=keyboard(("Go", "g")))
    query = telegram_api.user_presses(group, sent.message_id, ann, "g")
    await asyncio.sleep(0.15)  # 90 virtual seconds: the window has rolled, the query is still fresh
    for _ in range(2):
        await bot.send_message(group.id, "Table")
    assert await bot.answer_callback_query(query)
    assert telegram_api.callback_answers[query].delay < 1.0


async def test_a_held_edit_waits_for_release_and_one_whose_caller_hung_up_is_never_applied(
    telegram_api: FakeTelegram, bot: Bot
) -> None:
    group = telegram_api.add_group("Durak club")
    sent = await bot.send_message(group.id, "Table 1")
    telegram_api.hold("editMessageText")
    abandoned = asyncio.ensure_future(bot.edit_message_text("Table 2", group.id, sent.message_id))
    await telegram_api.wait_until(lambda: telegram_api.held_calls == 1, what="the edit to be held")
    abandoned.cancel()  # the caller gives up (a killed bot's connection closes the same way)
    await asyncio.gather(abandoned, return_exceptions=True)
    await telegram_api.wait_until(lambda: telegram_api.held_calls == 0, what="the server to drop the call")
    waiting = asyncio.ensure_future(bot.edit_message_text("Table 3", group.id, sent.message_id))
    await telegram_api.wait_until(lambda: telegram_api.held_calls == 1, what="the next edit to be held")
    assert telegram_api.message(group, sent.message_id).text == "Table 1"
    telegram_api.release()
    await waiting
    assert [v.plain for v in telegram_api.message(group, sent.message_id).versions] == ["Table 1", "Table 3"]
