"""`durak-bot run` as the crash test runs it: the same `main(["run"])`, configured by the environment (the
token, the fake Bot API's URL, DATA_DIR for the embedded Redis), in a process of its own that the test may
SIGKILL. One change: the Telegram adapter paces its sends on the fake's virtual clock (`SPEED` times real
time, as the fake counts Telegram's limits), so a whole game takes seconds instead of minutes of flood
limits. Run: ``python -m tests.scale.run_worker``."""

from __future__ import annotations

import sys

from adapters.telegram import delivery
from cli.main import main
from tests.fakes.telegram_model import Clock

SPEED = 1000


def fast_clock() -> Clock:
    return Clock(speed=SPEED)


if __name__ == "__main__":
    vars(delivery)["MonotonicClock"] = fast_clock  # the name `Delivery` builds its default clock from
    sys.exit(main(["run"]))
