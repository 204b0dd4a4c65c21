"""A Mini App's initData is believed only when Telegram signed it for this bot within the last day, and the
person is the one in its signed ``user`` field: one test per way it can be wrong."""

from __future__ import annotations

import json
import logging
from urllib.parse import quote

import pytest

from adapters.web.auth import (
    InitDataRefused,
    Refusal,
    refusal_text,
    telegram_viewer,
    web_app_secret,
)
from bot.i18n import LANGUAGES, translator
from tests.web.initdata import encode, init_fields, make_init_data, sign, signed, user_json

TOKEN = "7012345678:AAHq3xYzW9-secret_half_of_the_token_0123"
OTHER_BOT = "7098765432:AAEother-bots-secret_half_9876543210"
NOW = 1_764_600_000.0
DAY = 24 * 3600


def refused(init_data: str, token: str = TOKEN, now: float = NOW) -> Refusal:
    with pytest.raises(InitDataRefused) as caught:
        telegram_viewer(init_data, token, now)
    return caught.value.reason


def test_initdata_telegram_signed_for_this_bot_names_its_user() -> None:
    init_data = make_init_data(TOKEN, 4242, "Ann", "ru", start_param="-100123_k3x9", auth_date=NOW - 60)
    viewer = telegram_viewer(init_data, TOKEN, NOW)
    assert (viewer.user_id, viewer.name, viewer.lang) == ("4242", "Ann", "ru")
    assert viewer.start_param == "-100123_k3x9"
    assert viewer.auth_date == int(NOW - 60)


def test_every_signed_field_counts_in_the_check_even_ones_we_do_not_read() -> None:
    fields = {**init_fields(4242, auth_date=NOW), "chat_instance": "-88", "chat_type": "supergroup"}
    assert telegram_viewer(signed(fields, TOKEN), TOKEN, NOW).user_id == "4242"
    altered = {**fields, "chat_type": "private"}
    assert refused(encode({**altered, "hash": sign(fields, TOKEN)})) is Refusal.SIGNATURE


def test_a_forged_hash_is_refused() -> None:
    fields = init_fields(4242, auth_date=NOW)
    assert refused(encode({**fields, "hash": "ab" * 32})) is Refusal.SIGNATURE


def test_a_user_id_changed_after_signing_is_refused() -> None:
    fields = init_fields(4242, auth_date=NOW)
    hash_ = sign(fields, TOKEN)
    assert refused(encode({**fields, "user": user_json(4243), "hash": hash_})) is Refusal.SIGNATURE


def test_a_start_param_changed_after_signing_is_refused() -> None:
    fields = init_fields(4242, start_param="-100123_k3x9", auth_date=NOW)
    hash_ = sign(fields, TOKEN)
    assert refused(encode({**fields, "start_param": "-100999_k3x9", "hash": hash_})) is Refusal.SIGNATURE


def test_initdata_older_than_a_day_is_refused() -> None:
    assert telegram_viewer(make_init_data(TOKEN, 4242, auth_date=NOW - DAY + 5), TOKEN, NOW)
    assert refused(make_init_data(TOKEN, 4242, auth_date=NOW - DAY - 5)) is Refusal.EXPIRED


def test_initdata_signed_in_the_future_is_refused_beyond_a_little_clock_skew() -> None:
    assert telegram_viewer(make_init_data(TOKEN, 4242, auth_date=NOW + 30), TOKEN, NOW)
    assert refused(make_init_data(TOKEN, 4242, auth_date=NOW + 3600)) is Refusal.FUTURE


def test_initdata_another_bots_token_signed_is_refused() -> None:
    assert refused(make_init_data(OTHER_BOT, 4242, auth_date=NOW)) is Refusal.SIGNATURE


def test_initdata_without_a_hash_is_refused() -> None:
    assert refused(encode(init_fields(4242, auth_date=NOW))) is Refusal.SIGNATURE


def test_no_initdata_at_all_is_refused_as_missing() -> None:
    assert refused("") is Refusal.MISSING


def test_a_field_given_twice_is_refused_even_when_one_copy_is_signed() -> None:
    """A second ``user`` after the signed one must not decide who is asking."""
    init_data = make_init_data(TOKEN, 4242, auth_date=NOW) + "&user=" + quote(user_json(1))
    assert refused(init_data) is Refusal.MALFORMED


@pytest.mark.parametrize(
    "garbage",
    ["hash", "user=%7B&&hash=00", "a=1&b", "user=%ff%fe&hash=" + "0" * 64, "x=" + "y" * 9000, "&" * 40],
)
def test_garbage_is_refused_as_malformed(garbage: str) -> None:
    assert refused(garbage) is Refusal.MALFORMED


@pytest.mark.parametrize(
    "user",
    [
        None,
        "not json",
        json.dumps({"first_name": "Ann"}),
        json.dumps({"id": "4242"}),
        json.dumps({"id": True}),
    ],
)
def test_signed_data_without_a_real_user_id_is_refused(user: str | None) -> None:
    fields = init_fields(4242, auth_date=NOW)
    if user is None:
        del fields["user"]
    else:
        fields["user"] = user
    assert refused(signed(fields, TOKEN)) is Refusal.NO_USER


def test_no_refusal_log_line_or_text_holds_the_token_the_key_or_the_data(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secrets = [TOKEN, TOKEN.split(":")[1], web_app_secret(TOKEN).hex()]
    tries = [
        encode({**init_fields(4242, auth_date=NOW), "hash": "ab" * 32}),
        make_init_data(OTHER_BOT, 4242, auth_date=NOW),
        make_init_data(TOKEN, 4242, auth_date=NOW - 2 * DAY),
        "garbage&garbage",
    ]
    caplog.set_level(logging.DEBUG)
    texts = []
    for init_data in tries:
        with pytest.raises(InitDataRefused) as caught:
            telegram_viewer(init_data, TOKEN, NOW)
        texts += [str(caught.value), repr(caught.value)]
        for lang in LANGUAGES:
            texts.append(refusal_text(caught.value.reason, translator(lang)))
    texts.append(caplog.text)
    valid_hash = make_init_data(TOKEN, 4242, auth_date=NOW).rpartition("hash=")[2]
    for text in texts:
        assert not [secret for secret in secrets if secret in text]
        assert "AAHdF6IQ" not in text and valid_hash not in text and "4242" not in text
