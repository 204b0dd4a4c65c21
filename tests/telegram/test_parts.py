"""The adapter's pure parts: deep-link encoding, HTML rendering, pacing and the merge rule."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from adapters.telegram.deeplink import START_PARAMETER_RE, decode_start, encode_start
from adapters.telegram.items import HAND, TABLE, Item, items_for, merged
from adapters.telegram.pacing import Limits
from adapters.telegram.render import CALLBACK, URL, render, split_long
from bot.buttons import named
from bot.effects import Button, Message, Notice, Reply, ShowHand, ShowTable, Span
from bot.payloads import Payload, parse
from bot.render.text import line, message

PAYLOAD_CHARS = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_|:?", max_size=40
)


@given(PAYLOAD_CHARS.filter(bool))
def test_any_payload_survives_the_deep_link_round_trip(payload: str) -> None:
    encoded = encode_start(payload)
    assert START_PARAMETER_RE.fullmatch(encoded)
    assert decode_start(encoded) == payload


def test_the_longest_telegram_payload_fits_a_start_parameter() -> None:
    payload = Payload("-1009999999999999", "zzzzzzzzzzzz", 999999, named("c:5:TH")).encode()
    assert len(encode_start(payload)) <= 64
    assert parse(decode_start(encode_start(payload)) or "") == parse(payload)


def test_a_foreign_start_parameter_is_not_ours() -> None:
    assert decode_start("-x") is None and decode_start("a b") is None and decode_start("") is None


def test_every_span_is_escaped_and_only_our_markup_remains() -> None:
    hostile = "<b>&lt;/b> & <a href='x'>"
    rendered = render(Message((line(Span(hostile, bold=True), " vs ", Span("<code>", mono=True)),)), "bot")
    assert (
        rendered.text
        == "<b>&lt;b&gt;&amp;lt;/b&gt; &amp; &lt;a href='x'&gt;</b> vs <code>&lt;code&gt;</code>"
    )


def test_buttons_become_callbacks_urls_or_deep_links() -> None:
    join = Button("Join", "-100|g1|0|J", opens_private=True)
    msg = message(
        [line("Lobby")], [[join, Button("Start", "-100|g1|0|S")], [Button("Web", url="https://example.org")]]
    )
    group = render(msg, "durak_bot")
    assert group.keyboard == (
        (("Join", URL, "https://t.me/durak_bot?start=--100_g1_0_J"), ("Start", CALLBACK, "-100|g1|0|S")),
        (("Web", URL, "https://example.org"),),
    )
    private = render(msg, "durak_bot", private_chat=True)
    assert private.keyboard[0][0] == ("Join", CALLBACK, "-100|g1|0|J"), "already in the private chat"


def test_a_message_over_telegrams_limit_is_split_between_lines() -> None:
    long = message([line("x" * 1000) for _ in range(9)], [[Button("Ok", "p")]])
    parts = split_long(long)
    assert len(parts) == 3 and all(len(p.plain_text) <= 4096 for p in parts)
    assert [p.buttons for p in parts] == [(), (), long.buttons]


def simulate(limits: Limits, pace_of: str, demand: float, seconds: float) -> list[float]:
    """Ask to send every ``demand`` seconds (plus jitter), send whenever the pace allows."""
    rng = random.Random(1)
    now = 0.0
    pace = getattr(limits, pace_of)(now)
    sent: list[float] = []
    while now < seconds:
        wait = pace.wait(now)
        if wait > 0:
            now += wait
            continue
        pace.take(now)
        latency = rng.uniform(0.0, 0.3)
        pace.settle(now, now + latency)
        sent.append(now + latency)
        now += demand * rng.uniform(0.0, 2.0)
    return sent


def most_in_window(times: list[float], window: float) -> int:
    return max(sum(1 for t in times if start <= t < start + window) for start in times)


def test_a_group_never_gets_more_than_20_messages_a_minute_and_no_long_freeze() -> None:
    sent = simulate(Limits(), "group", demand=0.5, seconds=600)
    assert most_in_window(sent, 60.0) <= 20
    gaps = [b - a for a, b in zip(sent, sent[1:], strict=False)]
    assert max(gaps) < 5, "a steady pace, not 20 at once and then a frozen minute"
    assert len(sent) >= 160, "and close to the allowed 200 in ten minutes"


def test_the_bot_never_sends_more_than_30_messages_a_second() -> None:
    sent = simulate(Limits(), "overall", demand=0.001, seconds=20)
    assert most_in_window(sent, 1.0) <= 30


def test_a_private_chat_gets_about_one_message_a_second() -> None:
    sent = simulate(Limits(), "private", demand=0.01, seconds=60)
    assert len(sent) <= 60 + 3 + 1


def test_consecutive_table_or_hand_updates_merge_but_posts_never() -> None:
    table1 = ShowTable("-1", message([line("lobby")]), "g1", new_message=True)
    table2 = ShowTable("-1", message([line("lobby, Bob joined")]), "g1")
    hand = ShowHand("-1", "7", message([line("hand")]), "g2")
    items = items_for(
        [table1, table2, hand, Notice("-1", message([line("n")])), Reply("-1", message([line("r")]))]
    )
    assert [i.kind for i in items] == [TABLE, TABLE, HAND, "post", "post"]
    both = merged(items[0], items[1])
    assert both is not None and both.new_message and both.message == table2.message
    assert merged(items[1], items[2]) is None and merged(items[3], items[4]) is None
    other_user = Item(HAND, 8, "-1", hand.message, "g2", user_id="8")
    assert merged(items[2], other_user) is None


def test_a_private_reply_goes_to_the_users_chat() -> None:
    (item,) = items_for([Reply("-100", message([line("5 seconds left")]), private=True, user_id="42")])
    assert (item.chat, item.home, item.private) == (42, "-100", True)
