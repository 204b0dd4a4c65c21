"""What the Telegram adapter promises besides whole games: closed private chats, stale buttons, escaping,
forum topics, group migration, flood control, the command menu and the webhook's secret."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from bot.commands.table import Place, offered_in
from bot.effects import Notice, Reply
from bot.render.text import line, message
from bot.session import Finished, Playing
from tests.telegram.test_private_chat import game_opened_by_someone_who_then_blocks_the_bot
from tests.telegram.world import World


async def two_player_game(world: World, group_kind: str = "supergroup", forum: bool = False):  # type: ignore[no-untyped-def]
    ann, bob = world.person("Ann"), world.person("Bob")
    group = world.fake.add_group("Club", [ann, bob], owner=ann, kind=group_kind, forum=forum)
    await world.settle()
    await world.say(group, ann, "/newgame")
    lobby = world.newest(group, "New game")
    await world.tap(group, lobby, bob, "Join")
    await world.tap(group, lobby, ann, "Start")
    return group, ann, bob


async def wait_for(predicate, what: str, timeout: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not await predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


async def test_player_whose_private_chat_is_closed_is_asked_in_the_group_and_the_game_waits(
    world: World,
) -> None:
    group, cat, _ann = await game_opened_by_someone_who_then_blocks_the_bot(world)
    ask = world.newest(group, "private chat")
    assert "Cat" in ask.text and ask.buttons()[0]["url"].startswith("https://t.me/durak_test_bot?start=")
    assert any(r.method == "sendMessage" and r.status == 403 for r in world.fake.call_log)
    session = await world.session(group)
    assert session is not None and isinstance(session.header, Playing) and session.game is not None
    step = session.game.step

    async def moved() -> bool:
        now = await world.session(group)
        return now is not None and now.game is not None and now.game.step > step

    assert not await moved(), "nothing moves by itself before the turn timer"
    world.offset += 61 + 120  # past the 60 s turn timer and Cat's longest pause: the seat to act times out
    await wait_for(moved, "the turn timer to act")
    await world.settle()
    asks = [m for m in world.fake.bot_messages(group) if "private chat" in m.text]
    assert len(asks) == 1, "one request per player and game, however often their hand changes"
    await world.tap(group, ask, cat, "Show my cards")
    assert "Your cards" in world.newest(cat).text
    await world.check_rules(group, [], running=True)


async def test_stale_button_press_gets_the_services_alert(world: World) -> None:
    group, ann, bob = await two_player_game(world)
    mover = world.acting([ann, bob])
    hand = world.hand(mover)
    assert hand is not None
    old_data = [b["callback_data"] for b in hand.buttons() if "callback_data" in b]
    query = world.fake.user_presses(mover, hand.message_id, mover, old_data[0])
    await world.fake.wait_for_answer(query)
    await world.settle()
    stale = world.fake.user_presses(mover, hand.message_id, mover, old_data[0], strict=False)
    answer = await world.fake.wait_for_answer(stale)
    assert answer.text in (
        "That button is out of date: use the newest message.",
        "That move is not possible now.",
    )
    forged = world.fake.user_presses(mover, hand.message_id, mover, "nonsense", strict=False)
    assert (await world.fake.wait_for_answer(forged)).text == "That button is not valid."
    await world.settle()
    world.fake.assert_no_bad_requests()


async def test_hostile_names_and_titles_render_exactly_as_typed(world: World) -> None:
    name, title = "<b>&lt;/b>", "<i>Club & co</i>"
    eve, ann = world.person(name), world.person("Ann")
    group = world.fake.add_group(title, [eve, ann], owner=eve)
    await world.say(group, eve, "/newgame")
    lobby = world.newest(group, "New game")
    assert f"1. {name}" in lobby.text
    await world.tap(group, lobby, ann, "Join")
    await world.tap(group, lobby, eve, "Start")
    assert name in world.fake.message(group, lobby.message_id).text
    assert f"Durak in {title}" in world.newest(eve, "Your cards").text
    world.fake.assert_no_bad_requests()


async def test_a_game_opened_in_a_forum_topic_posts_there(world: World) -> None:
    ann, bob = world.person("Ann"), world.person("Bob")
    group = world.fake.add_group("Forum", [ann, bob], owner=ann, forum=True)
    await world.say(group, ann, "/newgame", thread=5)
    lobby = world.newest(group, "New game")
    assert lobby.thread_id == 5
    await world.tap(group, lobby, bob, "Join")
    await world.tap(group, lobby, ann, "Start")
    await world.surrender(group, bob, thread=5)  # the game ends with a notice
    over = world.newest(group, "Game over")
    assert over.thread_id == 5
    await world.say(group, ann, "/stats", thread=9)
    assert world.newest(group, "Standings").thread_id == 9, "a command's answer goes where it was asked"


async def test_a_group_that_becomes_a_supergroup_keeps_its_game(world: World) -> None:
    group, ann, bob = await two_player_game(world, group_kind="group")
    for _ in range(3):
        await world.press_first_move([ann, bob])
    before = len(world.fake.bot_messages(group))
    supergroup = world.fake.migrate_group(group)
    await world.settle()
    session = await world.session(supergroup)
    assert session is not None and isinstance(session.header, Playing)
    await world.play_to_end(supergroup, [ann, bob])
    finished = await world.session(supergroup)
    assert finished is not None and isinstance(finished.header, Finished)
    assert len(world.fake.bot_messages(group)) == before, "nothing more was sent to the old group"
    assert "Game over" in world.newest(supergroup).text
    await world.say(supergroup, ann, "/stats")
    board = world.newest(supergroup, "Standings")
    assert "Ann" in board.text and "Bob" in board.text
    await world.check_rules(supergroup, [finished.header.game_id])
    world.fake.assert_no_bad_requests()


async def test_flood_control_pauses_only_the_chat_that_hit_it(world: World) -> None:
    ann = world.person("Ann")
    group = world.fake.add_group("Club", [ann], owner=ann)
    await world.settle()
    world.fake.limits.group_per_window = 4  # Telegram stricter than we assume: it answers 429
    chat = str(group.id)
    notices = [Notice(chat, message([line(f"notice {n}")])) for n in range(8)]
    private = [
        Reply(str(ann.id), message([line(f"private {n}")]), private=True, user_id=str(ann.id))
        for n in range(3)
    ]
    world.bot.delivery.submit([*notices, *private])
    await world.bot.delivery.wait_idle(10)
    assert world.fake.rate_limited and all(chat_id == group.id for _, chat_id, _ in world.fake.rate_limited)
    texts = [m.text for m in world.fake.bot_messages(group)]
    assert texts == [f"notice {n}" for n in range(8)], "everything arrives once, in order"
    sends = [r for r in world.fake.call_log if r.method == "sendMessage" and r.status == 200]
    resumed = min(
        r.at for r in sends if str(r.params.get("chat_id")) == chat and r.at > world.fake.rate_limited[0][0]
    )
    private_done = max(
        r.at
        for r in sends
        if str(r.params.get("chat_id")) == str(ann.id) and "private" in str(r.params.get("text"))
    )
    assert private_done < resumed, "the private chat did not wait for the group's pause"


async def test_table_updates_in_a_burst_are_merged(world: World) -> None:
    people = [world.person(name) for name in ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay")]
    group = world.fake.add_group("Club", people, owner=people[0])
    for person in people[1:]:  # people who talk in the group: it knows they are in it (no getChatMember)
        await world.say(group, person, "I'm in")
    await world.say(group, people[0], "/newgame")
    lobby = world.newest(group, "New game")
    for person in people[1:]:
        world.fake.press_button(group, lobby.message_id, person, "Join")
    await world.settle()
    final = world.fake.message(group, lobby.message_id)
    assert all(p.first_name in final.text for p in people)
    assert final.edits < len(people) - 1, "five joins, fewer edits"


async def test_commands_are_published_in_english_russian_and_italian(world: World) -> None:
    english = {c["command"]: c["description"] for c in world.fake.commands_for("")}
    assert set(english) == {spec.name for spec in offered_in(Place.TELEGRAM)}  # the table, in English
    for lang in ("ru", "it"):
        local = {c["command"]: c["description"] for c in world.fake.commands_for(lang)}
        assert set(local) == set(english) and local["newgame"] != english["newgame"]


async def test_only_settings_and_cancel_ask_who_is_admin(world: World) -> None:
    ann, bob = world.person("Ann"), world.person("Bob")
    group = world.fake.add_group("Club", [ann, bob], owner=ann)
    await world.say(group, bob, "/newgame")
    await world.say(group, bob, "/stats")
    assert world.fake.calls["getChatMember"] == 0
    await world.say(group, bob, "/settings transfer")
    assert "Only an admin" in world.newest(group).text
    await world.say(group, ann, "/settings transfer")
    assert world.newest(group).text == "Saved."
    assert world.fake.calls["getChatMember"] == 2


async def test_webhook_refuses_a_request_without_the_secret(world_factory: Callable[..., World]) -> None:
    world = world_factory(webhook=True)
    await world.start()
    ann = world.person("Ann")
    await world.settle()
    update = {"update_id": 999, "message": {"message_id": 1, "date": 0, "chat": {"id": ann.id, "type": "private"},
              "from": ann.to_json(), "text": "/help"}}  # fmt: skip
    assert await world.fake.post_to_webhook(update, secret_token="wrong") == 403
    assert await world.fake.post_to_webhook(update, secret_token=None) == 403
    assert 999 not in world.handled


async def test_a_slow_service_still_gets_the_press_answered_within_a_second(world: World) -> None:
    group, ann, bob = await two_player_game(world)
    mover = world.acting([ann, bob])
    hand = world.hand(mover)
    assert hand is not None
    handle = world.bot.handlers.service.handle

    async def slow(event):  # type: ignore[no-untyped-def]
        await asyncio.sleep(1.2)
        return await handle(event)

    world.bot.handlers.service.handle = slow  # type: ignore[method-assign]
    data = next(b["callback_data"] for b in hand.buttons() if "callback_data" in b)
    answer = await world.fake.wait_for_answer(world.fake.user_presses(mover, hand.message_id, mover, data))
    assert answer.delay < 1.0 and answer.text == ""
    await world.settle()
    world.bot.handlers.service.handle = handle  # type: ignore[method-assign]
    session = await world.session(group)
    assert session is not None and session.game is not None and session.game.step == 1, (
        "the move still counts"
    )
    world.fake.assert_no_bad_requests()


async def test_the_next_players_buttons_do_not_wait_for_the_press_being_answered(world: World) -> None:
    group, ann, bob = await two_player_game(world)
    mover = world.acting([ann, bob])
    other = bob if mover is ann else ann
    hand = world.hand(mover)
    assert hand is not None
    data = next(b["callback_data"] for b in hand.buttons() if "callback_data" in b)
    world.fake.hold("answerCallbackQuery")  # the press's answer is slow to reach Telegram
    world.fake.user_presses(mover, hand.message_id, mover, data)
    try:
        await world.fake.wait_until(
            lambda: world.acting([ann, bob]) is other, what="the next player's buttons while the answer waits"
        )
    finally:
        world.fake.release()
    await world.settle()


async def test_a_practice_game_in_the_private_chat_against_the_ai(world: World) -> None:
    ann = world.person("Ann")
    await world.say(ann, ann, "/newgame deck=24")
    lobby = world.newest(ann, "New game")
    assert lobby.buttons()[0].get("callback_data"), "Join needs no deep link in the private chat"
    await world.tap(ann, lobby, ann, "Add AI")
    await world.tap(ann, lobby, ann, "Start")
    private = world.fake.chat(ann)
    await world.play_to_end(private, [ann])
    assert "Game over" in world.newest(ann).text
    world.fake.assert_no_bad_requests()


async def test_run_telegram_serves_until_cancelled_and_registers_with_the_timer_loop(
    world_factory: Callable[..., World],
) -> None:
    from adapters.telegram.app import run_telegram
    from bot.timers import Deliveries

    world = world_factory()  # built, not started: run_telegram starts its own bot from the config
    ann = world.person("Ann")
    deliveries = Deliveries()  # the process's timer routes, as `durak-bot run` builds them
    serving = asyncio.create_task(run_telegram(world.config, world.service, world.store, deliveries))
    await world.fake.wait_until(
        lambda: any(m.text.startswith("Durak bot") for m in world.fake.bot_messages(ann.id))
    )
    assert "tg" in deliveries.routes
    assert len(world.fake.commands_for("ru")) == len(offered_in(Place.TELEGRAM))
    serving.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await serving
    assert world.fake.call_log[-1].method == "getUpdates", "the last offset was confirmed on the way out"
    assert "tg" not in deliveries.routes


async def test_a_table_message_that_is_gone_is_replaced_by_a_new_one(world: World) -> None:
    group, ann, bob = await two_player_game(world)
    table = world.newest(group, "Trump")
    table.deleted = True  # an admin deleted it
    await world.press_first_move([ann, bob])
    new_table = world.newest(group, "Trump")
    assert new_table.message_id != table.message_id
    refused = [r for r in world.fake.call_log if r.status == 400]
    assert [r.description for r in refused] == ["Bad Request: message to edit not found"]
    await world.press_first_move([ann, bob])
    assert world.fake.message(group, new_table.message_id).edits >= 1, "later updates edit the new table"
    assert len([r for r in world.fake.call_log if r.status == 400]) == 1
