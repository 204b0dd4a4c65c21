"""Two processes on one token, one Redis: what each person sees is true at once (docs/telegram.md §4).

- No edit is sent that would change nothing, whichever process sent what the message shows: Telegram never
  answers "message is not modified" (the content mark beside the screen's id, checked in the pacing call).
- One live hand a person: a hand posted anew is stored only while its send still holds the screen, the old
  message's removal is owed until made (by whichever process sends the screen next), and a finished game's
  hand left with its buttons loses them when the next game's hand comes.

Each "process" is a `Delivery` with its own PTB `Bot`, chat memory and pacer (tests/telegram/
tests/telegram/conftest.py's `processes`), on fakeredis and once on a real redis-server.
"""

from __future__ import annotations

from typing import Any

from bot.effects import Button, ShowHand, ShowTable
from bot.render.text import line, message
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_model import Clock as FakeClock
from tests.fakes.telegram_model import FakeUser
from tests.telegram.test_shared_pacing import StalledClock, idle, people, sent_to, text


def not_modified(fake: FakeTelegram) -> list[str]:
    return [r.description for r in fake.call_log if r.status == 400 and "not modified" in r.description]


def with_move(words: str, game: str, step: int) -> Any:
    """A hand with one move button of ``game`` at ``step``."""
    return message([line(words)], [[Button("8♠", f"-1|{game}|{step}|a:8S")]])


def live_hands(fake: FakeTelegram, user: FakeUser) -> list[str]:
    """The bot's messages in the person's private chat that still show buttons to press."""
    chat = fake.chat(user)
    return [
        m.current.plain
        for m in chat.messages.values()
        if m.from_bot and not m.deleted and any("callback_data" in b for b in m.buttons())
    ]


async def test_two_processes_never_provoke_message_is_not_modified(
    telegram_api: FakeTelegram, processes: Any, shared_redis: Any
) -> None:
    telegram_api.clock = FakeClock(speed=10)
    a, b = await processes(shared_redis)
    group = telegram_api.add_group("Durak night")
    (player,) = people(telegram_api, 1, 6001)
    chat, user = str(group.id), str(player.id)
    a.submit([ShowTable(chat, text("table at step 4"), "g1", version=4)])
    a.submit([ShowHand(chat, user, with_move("your move", "g1", 4), "g1", version=4)])
    await idle(a, b)
    # B draws the same again: a stale press's redraw at the same version, a change the screens do not show
    b.submit([ShowTable(chat, text("table at step 4"), "g1", version=4)])
    b.submit([ShowHand(chat, user, with_move("your move", "g1", 4), "g1", version=5)])
    await idle(a, b)
    a.submit([ShowTable(chat, text("table at step 4"), "g1", version=6)])
    await idle(a, b)
    assert not_modified(telegram_api) == [], "no edit that changes nothing, whoever sent the message"
    assert telegram_api.calls["editMessageText"] == 0
    assert a.not_modified + b.not_modified == 0


async def test_an_edit_back_to_what_this_process_last_sent_is_made_after_another_process_changed_it(
    telegram_api: FakeTelegram, processes: Any, fake_redis: Any
) -> None:
    telegram_api.clock = FakeClock(speed=10)
    a, b = await processes(fake_redis)
    group = telegram_api.add_group("Durak night")
    (player,) = people(telegram_api, 1, 6101)
    chat, user = str(group.id), str(player.id)
    a.submit([ShowHand(chat, user, text("Your cards: 6♠ 7♥"), "g1", version=1)])
    await idle(a, b)
    b.submit([ShowHand(chat, user, with_move("Your cards: 6♠ 7♥", "g1", 2), "g1", version=2)])
    await idle(a, b)
    a.submit([ShowHand(chat, user, text("Your cards: 6♠ 7♥"), "g1", version=3)])  # the buttons go again
    await idle(a, b)
    assert live_hands(telegram_api, player) == [], "what A once sent is not what the message shows now"


async def test_two_processes_leave_one_live_hand_per_person(
    telegram_api: FakeTelegram, processes: Any, shared_redis: Any
) -> None:
    """A game ends while process A is held up: its last hand edit (no buttons) is still queued there when
    process B deals the next game and posts the new hand. A's edit is now older than what was sent: it is
    dropped, and the old game's hand kept its buttons. B takes them off."""
    telegram_api.clock = FakeClock(speed=10)
    stalled = StalledClock(telegram_api.clock, stall=0.0)
    a, b = await processes(shared_redis, clocks=[stalled, telegram_api.clock])
    group = telegram_api.add_group("Durak night")
    (player,) = people(telegram_api, 1, 6201)
    chat, user = str(group.id), str(player.id)
    for version in (1, 2, 3):  # game 1's hand, with a move; the chat's burst is spent
        a.submit(
            [ShowHand(chat, user, with_move(f"game 1, step {version}", "g1", version), "g1", version=version)]
        )
        await a.wait_idle()
    stalled.stall = 20.0  # A is held up while game 1's last hand waits for the chat's pace
    a.submit([ShowHand(chat, user, text("game 1: you are the durak"), "g1", version=4)])
    await telegram_api.clock.sleep(0.2)
    b.submit(
        [ShowHand(chat, user, with_move("game 2: your cards", "g2", 0), "g2", new_message=True, version=9)]
    )
    await idle(a, b)
    assert live_hands(telegram_api, player) == ["game 2: your cards"], "one hand to press: this game's"
    telegram_api.assert_no_bad_requests()


async def test_a_hand_posted_anew_after_its_hold_ran_out_leaves_the_newer_one_alone(
    telegram_api: FakeTelegram, processes: Any, fake_redis: Any
) -> None:
    """A's announced hand takes longer than the screen's hold (5 s) to reach Telegram; meanwhile B announces
    the next turn. A's new message, once it lands, is the older: it goes, and B's stays the hand."""
    telegram_api.clock = FakeClock(speed=10)
    a, b = await processes(fake_redis)
    group = telegram_api.add_group("Durak night")
    (player,) = people(telegram_api, 1, 6301)
    chat, user = str(group.id), str(player.id)
    a.submit([ShowHand(chat, user, with_move("step 1", "g1", 1), "g1", version=1)])
    await idle(a, b)
    telegram_api.hold("sendMessage")
    a.submit([ShowHand(chat, user, with_move("step 2", "g1", 2), "g1", version=2, announce=True)])
    await telegram_api.wait_until(lambda: telegram_api.held_calls == 1, what="A's hand on its way")
    await telegram_api.clock.sleep(6.0)  # past the hold: B goes
    b.submit([ShowHand(chat, user, with_move("step 3", "g1", 3), "g1", version=3, announce=True)])
    await telegram_api.wait_until(lambda: telegram_api.held_calls == 2, what="B's hand on its way")
    await telegram_api.release_newest_first()  # B's lands first, then A's
    await idle(a, b)
    assert live_hands(telegram_api, player) == ["step 3"], "one hand, the newest"


async def test_an_old_hand_whose_delete_failed_is_deleted_by_the_next_send_of_either_process(
    telegram_api: FakeTelegram, processes: Any, fake_redis: Any
) -> None:
    telegram_api.clock = FakeClock(speed=10)
    a, b = await processes(fake_redis)
    group = telegram_api.add_group("Durak night")
    (player,) = people(telegram_api, 1, 6401)
    chat, user = str(group.id), str(player.id)
    a.submit([ShowHand(chat, user, with_move("step 1", "g1", 1), "g1", version=1)])
    await idle(a, b)
    telegram_api.outage["deleteMessage"] = 1  # the old hand's delete fails (Bad Gateway)
    a.submit([ShowHand(chat, user, with_move("step 2", "g1", 2), "g1", version=2, announce=True)])
    await idle(a, b)
    assert len(live_hands(telegram_api, player)) == 2, "the delete failed: it is owed"
    b.submit([ShowHand(chat, user, with_move("step 3", "g1", 3), "g1", version=3)])
    await idle(a, b)
    assert live_hands(telegram_api, player) == ["step 3"], "B, sending the hand next, made the owed delete"
    assert [t for _, t in sent_to(telegram_api, player.id)][-1] == "step 3"
