"""How many Activity sign-ins may reach Discord, decided before any of them does.

Each sign-in costs calls to Discord made with our client secret and bot token, from the address the bot's
gateway and REST traffic also leave from; Discord bans an address after 10,000 invalid requests in 10
minutes. So a sign-in is let through only while it fits every bound here, checked in this order, each before
anything costs Discord a call:

- per address (`client_address`: the peer, or what a proxy on our side says it saw): `ADDRESS_BURST` at
  once, then `ADDRESS_RATE` a second. Behind Discord's own proxy the people of an Activity share its few
  addresses, so this bound is set for a crowd, not for one person;
- per process: `PROCESS_BURST` at once, then `PROCESS_RATE` a second, whoever asks: at most about
  1,200 sign-ins reach Discord in 10 minutes from one process, however many addresses send junk;
- at most `MAX_EXCHANGES` being checked with Discord at the same moment (a slow Discord does not pile up
  waiting calls).

A refusal is a 429 with ``Retry-After``; after Discord itself answers 429, `discord_auth.Breaker` keeps every
call back for as long as Discord asked.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bot.adapter import PressLimiter

ADDRESS_RATE = 1.0  # sign-ins a second, sustained, from one address
ADDRESS_BURST = 20  # at once from one address: a channel's people opening the Activity together
PROCESS_RATE = 2.0  # sign-ins a second, sustained, for the whole process
PROCESS_BURST = 30
MAX_EXCHANGES = 8  # sign-ins being checked with Discord at once
EVERYONE = ("sign-in", "*")


class SignInGate:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_address = PressLimiter(ADDRESS_RATE, ADDRESS_BURST, clock)
        self.per_process = PressLimiter(PROCESS_RATE, PROCESS_BURST, clock)
        self.running = 0

    def admits(self, address: str | None) -> bool:
        """Whether a sign-in from ``address`` may go to Discord now (it takes its share of the budgets)."""
        if self.running >= MAX_EXCHANGES:
            return False
        if address is not None and not self.per_address.allow("address", address):
            return False
        return self.per_process.allow(*EVERYONE)

    @contextmanager
    def exchanging(self) -> Iterator[None]:
        """Counts a sign-in being checked with Discord, for `MAX_EXCHANGES`."""
        self.running += 1
        try:
            yield
        finally:
            self.running -= 1

    def retry_after(self) -> str:
        """The ``Retry-After`` of a refusal: when the process's budget holds another sign-in."""
        return str(max(1, math.ceil(1 / PROCESS_RATE)))
