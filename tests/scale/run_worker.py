"""`durak-bot run` as the crash test runs it: the same `main(["run"])`, configured by the environment (the
token, the fake Bot API's URL, DATA_DIR for the embedded Redis), in a process of its own that the test may
SIGKILL. One change: the Telegram adapter paces its sends on the fake's virtual clock (`SPEED` times real
time, as the fake counts Telegram's limits), so a whole game takes seconds instead of minutes of flood
limits. Run: ``python -m tests.scale.run_worker``."""

from __future__ import annotations

import sys

from adapters.telegram import app, delivery
from adapters.telegram.pacing import Clock as PacingClock
from adapters.telegram.pacing import Limits
from adapters.telegram.shared_pacing import SharedPacer
from cli.main import main
from storage.store import RedisGameStore
from tests.fakes.telegram_model import SHARED_EPOCH, Clock

SPEED = 1000


def fast_clock() -> Clock:
    """The fake's virtual clock, counted from one origin in every process: a restarted bot's pacing in
    Redis (`SharedPacer`) agrees with what the one before it recorded."""
    return Clock(speed=SPEED, epoch=SHARED_EPOCH)


def shared_pacer(store: RedisGameStore, limits: Limits | None, clock: PacingClock | None) -> SharedPacer:
    return SharedPacer(store, limits, clock or fast_clock())


if __name__ == "__main__":
    vars(delivery)["MonotonicClock"] = fast_clock  # the name `Delivery` builds its default clock from
    vars(app)["SharedPacer"] = shared_pacer  # and the shared limits count on the same clock
    sys.exit(main(["run"]))
