"""Neutral messages as embeds and buttons within Discord's limits; custom_ids that survive a restart."""

from __future__ import annotations

import pytest

from adapters.discord.render import layout, to_embed
from adapters.discord.views import DirectMessageToggle, ServiceButton, build_view
from bot.effects import Button, Message, Span
from bot.payloads import Payload
from bot.render.text import bold, line, message

CHANNEL = "1234567890123456789"  # a Discord snowflake: 19 digits


def buttons(n: int, per_row: int) -> tuple[tuple[Button, ...], ...]:
    made = [Button(f"b{i}", Payload(CHANNEL, "g1", i, "a:6S").encode()) for i in range(n)]
    return tuple(tuple(made[i : i + per_row]) for i in range(0, n, per_row))


def test_the_first_line_is_the_title_and_every_span_is_escaped() -> None:
    embed = to_embed(message([line(bold("Durak in *club*")), line("Ann_", bold("**x**")), line("`code`")]))
    assert embed.title == r"Durak in \*club\*"
    assert embed.description == "Ann\\_**\\*\\*x\\*\\***\n\\`code\\`"


def test_a_mono_span_cannot_break_out_of_its_code_span() -> None:
    embed = to_embed(Message(lines=((Span("t"),), (Span("a`b", mono=True),))))
    assert embed.description == "`aˋb`"


def test_long_rows_are_split_into_fives_and_too_many_rows_are_packed_keeping_the_last_row() -> None:
    rows = layout(Message(lines=(), buttons=buttons(7, 7)))
    assert [len(r) for r in rows] == [5, 2]
    many = Message(
        lines=(), buttons=(*buttons(28, 4), (Button("Take", Payload(CHANNEL, "g1", 1, "t").encode()),))
    )
    rows = layout(many)
    assert len(rows) == 5 and all(len(r) <= 5 for r in rows)
    assert [b.label for b in rows[-1]] == ["Take"]


def test_the_adapters_extra_button_is_dropped_first_when_there_is_no_room() -> None:
    full = Message(lines=(), buttons=buttons(25, 5))
    extra = (layout(Message(lines=(), buttons=buttons(1, 1)))[0][0],)
    assert len(layout(full, extra)) == 5 and layout(full, extra)[-1][0].label == "b20"
    assert layout(Message(lines=(), buttons=buttons(3, 3)), extra)[-1] == list(extra)


def test_custom_ids_carry_the_payload_and_never_exceed_100_characters() -> None:
    longest = Payload("-" + "9" * 23, "z" * 12, 999999, "c:5:TS").encode()
    view = build_view(layout(Message(lines=(), buttons=((Button("x", longest),),))))
    assert view is not None
    (item,) = view.children
    assert isinstance(item, ServiceButton) and item.payload == longest
    assert len(item.custom_id) <= 100
    toggle = DirectMessageToggle(True, longest)
    assert toggle.custom_id == f"dm:{longest}" and len(toggle.custom_id) <= 100
    with pytest.raises(AssertionError):
        ServiceButton("x" * 99)


def test_a_message_without_buttons_has_no_view() -> None:
    assert build_view(layout(message([line("closed")]))) is None
