"""`durak-bot demo`, `run` and `replay` as separate processes: results, exit statuses and messages."""

from __future__ import annotations

import re
from pathlib import Path

from tests.local.cli import clean_env, run_cli


def test_demo_with_a_seed_plays_to_a_result_names_the_durak_and_prints_the_same_game_again(
    tmp_path: Path,
) -> None:
    env = clean_env(tmp_path / "data")
    first = run_cli(["demo", "--seed", "1"], tmp_path, env)
    assert first.returncode == 0, first.stderr
    assert re.search(r"^Game over: (\S+ is the durak!|a draw)", first.stdout, re.MULTILINE)
    assert "Standings" in first.stdout
    assert first.stdout.count("Trump ") > 20  # every table the group saw, not only the last one
    again = run_cli(["demo", "--seed", "1"], tmp_path, env)
    assert again.stdout == first.stdout
    other = run_cli(["demo", "--seed", "2", "--brief"], tmp_path, env)
    assert other.returncode == 0 and other.stdout != first.stdout


def test_demo_refuses_unknown_rules_words_with_the_reason(tmp_path: Path) -> None:
    result = run_cli(["demo", "--seed", "1", "deck=40"], tmp_path, clean_env(tmp_path / "data"))
    assert result.returncode == 2
    assert "deck" in result.stdout and "Traceback" not in result.stderr


def test_run_without_any_token_says_what_to_set_and_fails(tmp_path: Path) -> None:
    result = run_cli(["run"], tmp_path, clean_env(tmp_path / "data"))
    assert result.returncode != 0
    assert "TELEGRAM_TOKEN" in result.stderr and "DISCORD_TOKEN" in result.stderr
    assert "durak-bot play" in result.stderr
    assert not (tmp_path / "data").exists()  # nothing was started


def test_run_check_passes_with_the_embedded_redis_and_no_platform(tmp_path: Path) -> None:
    result = run_cli(["run", "--check"], tmp_path, clean_env(tmp_path / "data"))
    assert result.returncode == 0, result.stderr
    assert "Redis: ok (the embedded redis-server" in result.stdout
    assert "Telegram: off (set TELEGRAM_TOKEN)" in result.stdout


def test_run_check_reports_an_invalid_setting_by_name(tmp_path: Path) -> None:
    result = run_cli(["run", "--check"], tmp_path, clean_env(tmp_path / "data", AI_DELAY="soon"))
    assert result.returncode == 2
    assert "AI_DELAY" in result.stderr and "Traceback" not in result.stderr


def test_run_check_fails_when_the_redis_url_does_not_answer(tmp_path: Path) -> None:
    env = clean_env(tmp_path / "data", REDIS_URL=f"unix://{tmp_path}/nobody.sock")
    result = run_cli(["run", "--check"], tmp_path, env)
    assert result.returncode == 1
    assert "Redis: NOT answering" in result.stderr


def test_settings_are_read_from_a_dot_env_file_in_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("AI_DELAY=0.5\nLOG_LEVEL=warning\n")
    env = clean_env(tmp_path / "data")
    del env["AI_DELAY"]
    result = run_cli(["run", "--check"], tmp_path, env)
    assert result.returncode == 0, result.stderr
    assert "AI_DELAY=0.5" in result.stdout and "LOG_LEVEL=WARNING" in result.stdout


def test_replay_of_an_unknown_game_says_so(tmp_path: Path) -> None:
    result = run_cli(["replay", "nosuchgame"], tmp_path, clean_env(tmp_path / "data"))
    assert result.returncode == 1
    assert "No archived game 'nosuchgame'" in result.stderr


def test_verify_of_an_unknown_game_says_so(tmp_path: Path) -> None:
    result = run_cli(["verify", "nosuchgame"], tmp_path, clean_env(tmp_path / "data"))
    assert result.returncode == 1
    assert "No archived game 'nosuchgame'" in result.stderr


def test_an_embedded_redis_that_cannot_start_is_explained_not_a_traceback(tmp_path: Path) -> None:
    blocked = tmp_path / "data"
    blocked.write_text("a file where the data folder should be")
    result = run_cli(["run", "--check"], tmp_path, clean_env(blocked))
    assert result.returncode == 1
    assert "Could not start the embedded Redis" in result.stderr and "Traceback" not in result.stderr
