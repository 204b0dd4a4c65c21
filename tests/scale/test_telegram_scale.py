"""bench/telegram_scale.py's machinery on a small scale: three games at human pace on one webhook bot
process give figures that make sense, and its judge of stale screens sees an edit overtaken by an older
one; and (a soak test) ten games on two processes leave no message untrue."""

from __future__ import annotations

import pytest

from bench.telegram_scale import measure, stale_screens
from storage.embedded import find_redis_server
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_model import Version


def version(at: float, buttons: list[dict[str, str]]) -> Version:
    return Version(at, "Hand", None, "Hand", (), {"inline_keyboard": [buttons]})


def test_a_screen_left_on_an_older_step_than_its_chat_was_shown_is_stale() -> None:
    fake = FakeTelegram()
    ann = fake.add_user("Ann")
    fake.user_starts(ann)
    group = fake.add_group("Club", [ann])
    chat = fake.chat(ann)
    take = {"text": "Take", "callback_data": f"{group.id}|g2|4|t"}
    newer = {"text": "Take", "callback_data": f"{group.id}|g2|5|t"}
    hand = chat.add_message(fake.bot_id, True, 0, None, version(1.0, [take]))
    hand.versions.append(version(2.0, [newer]))
    assert stale_screens(fake) == []
    hand.versions.append(version(3.0, [take]))  # an older edit delivered after the newer one
    table = group.add_message(fake.bot_id, True, 0, None, version(1.0, [{"text": "My hand",
        "url": f"https://t.me/durak_test_bot?start=-{group.id}_g2_5_H"}]))  # fmt: skip
    table.versions.append(
        version(2.0, [{"text": "My hand", "url": f"https://t.me/x?start=-{group.id}_g2_4_H"}])
    )
    assert [line.split(" of game")[0] for line in stale_screens(fake)] == [
        f"chat {ann.id} message {hand.message_id}",
        f"chat {group.id} message {table.message_id}",
    ]
    assert stale_screens(fake)[0].endswith("its versions' steps: [4, 5, 4]")


@pytest.mark.redis_server
async def test_three_games_at_human_pace_give_plausible_figures() -> None:
    if find_redis_server() is None:
        pytest.skip("no redis-server binary")
    result = await measure(games=3, processes=1, app=False, seconds=8, warmup=1)
    assert result.moves >= 2, result  # every first move falls in the window: 2-8 s after the deal
    assert 0.5 <= result.writes_per_move <= 10, result
    assert result.next_samples and all(0 <= s < 5 for s in result.next_samples), result.next_samples
    assert result.table_samples and all(0 <= s < 10 for s in result.table_samples), result.table_samples
    assert (result.stale, result.rate_limited_all) == (0, 0), result.stale_examples
    assert (result.not_modified, result.live_hands) == (0, [])


@pytest.mark.soak
@pytest.mark.redis_server
async def test_two_processes_at_human_pace_leave_no_message_untrue() -> None:
    """Ten games on two webhook processes (about 45 s): no edit answered "message is not modified", no
    private chat left with two hands showing buttons, no stale screen (docs/telegram.md §4)."""
    if find_redis_server() is None:
        pytest.skip("no redis-server binary")
    result = await measure(games=10, processes=2, app=False, seconds=15, warmup=1)
    assert result.moves >= 10, result
    assert (result.not_modified, result.live_hands, result.stale) == (0, [], 0), result.stale_examples
