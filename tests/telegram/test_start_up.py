"""Start-up while Telegram cannot be reached: the outage is waited out, as one later on would be."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from tests.fakes.telegram_api import FakeTelegram
from tests.telegram.world import World


async def test_an_outage_at_start_up_is_waited_out_with_a_line_a_try_and_no_traceback(
    world_factory: Callable[..., World], telegram_api: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    world = world_factory()
    world.bot.start_retry_delays = (0.01, 0.02)
    telegram_api.outage["getMe"] = 3  # three Bad Gateways, then Telegram answers
    with caplog.at_level(logging.WARNING, logger="durak.telegram"):
        await world.start()
    tries = [record for record in caplog.records if "cannot be reached" in record.getMessage()]
    assert telegram_api.calls["getMe"] == 4
    assert len(tries) == 3 and all(record.exc_info is None for record in tries)
    assert telegram_api.token not in caplog.text
    ann = world.person("Ann")
    group = telegram_api.add_group("Club", [ann])
    await world.say(group, ann, "/newgame")
    assert world.newest(group, "Ann").buttons, "the bot serves once connected"
