"""compose.yaml: valid by the Compose Specification's schema (vendored, tests/deploy/README.md), and wired the
way docs/deploy.md says: the bot from this checkout configured by .env, Redis keeping an append-only file on a
volume, Caddy in front with its certificates on a volume and the Caddyfile that sends the domain to the bot."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
SCHEMA = Path(__file__).with_name("compose-spec.json")


def compose() -> dict[str, Any]:
    data = yaml.safe_load((REPO / "compose.yaml").read_text())
    assert isinstance(data, dict)
    return data


def schema_errors(document: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text()))
    return [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(document)
    ]


def test_compose_file_is_valid_by_the_compose_specification_schema() -> None:
    assert schema_errors(compose()) == []


def test_the_schema_check_refuses_a_misspelt_key() -> None:
    broken = compose()
    broken["services"]["bot"]["enviroment"] = {"PORT": "8080"}
    assert any("enviroment" in error for error in schema_errors(broken))


def test_the_bot_is_built_from_this_checkout_and_configured_by_the_env_file() -> None:
    bot = compose()["services"]["bot"]
    assert bot["build"] == "."
    assert bot["env_file"] == ".env"
    assert bot["environment"]["REDIS_URL"] == "redis://redis:6379/0"
    assert bot["depends_on"]["redis"]["condition"] == "service_healthy"


def test_nothing_in_compose_is_required_so_a_bot_without_a_domain_starts_from_its_env_file() -> None:
    """A `${VAR:?...}` stops every `docker compose` command while VAR is empty, whichever services run."""
    text = (REPO / "compose.yaml").read_text()
    assert not re.search(r"\$\{\w+\??:?\?", text), "a required variable in compose.yaml"


def test_a_long_polling_or_discord_only_bot_is_not_forced_onto_a_webhook() -> None:
    """WEBHOOK_URL is the operator's, from .env: empty means long polling, which needs no domain."""
    assert "WEBHOOK_URL" not in compose()["services"]["bot"]["environment"]


def test_caddy_runs_only_with_the_https_profile_and_the_env_file_turns_it_on() -> None:
    assert compose()["services"]["caddy"]["profiles"] == ["https"]
    assert all(
        "profiles" not in service for name, service in compose()["services"].items() if name != "caddy"
    )
    settings = (REPO / ".env.example").read_text()
    assert re.search(r"^COMPOSE_PROFILES=$", settings, re.MULTILINE), "off unless the operator says https"
    assert "COMPOSE_PROFILES=https" in settings and "WEBHOOK_URL=https://DOMAIN/telegram" in settings


def test_the_env_file_says_how_compose_uploads_discords_commands() -> None:
    settings = (REPO / ".env.example").read_text()
    assert re.search(r"^DISCORD_SYNC=0$", settings, re.MULTILINE)


def test_the_bot_health_check_is_the_images_and_docker_waits_longer_than_the_drain() -> None:
    bot = compose()["services"]["bot"]
    assert bot["healthcheck"]["test"] == ["CMD", "durak-bot", "health"]
    grace = int(bot["stop_grace_period"].removesuffix("s"))
    assert grace > 10, "docker stop must not SIGKILL before STOP_TIMEOUT's 10 s of sending are over"


def test_redis_keeps_an_append_only_file_on_a_named_volume() -> None:
    data = compose()
    redis = data["services"]["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    volume, _, mount = redis["volumes"][0].partition(":")
    assert mount == "/data" and volume in data["volumes"]
    assert "redis-cli" in redis["healthcheck"]["test"]


def test_caddy_serves_https_on_80_and_443_with_its_certificates_on_a_volume() -> None:
    data = compose()
    caddy = data["services"]["caddy"]
    assert {"80:80", "443:443"} <= set(caddy["ports"])
    mounts = dict(volume.split(":")[:2] for volume in caddy["volumes"])
    assert mounts["./Caddyfile"] == "/etc/caddy/Caddyfile"
    assert mounts["caddy-data"] == "/data" and "caddy-data" in data["volumes"]
    assert "DOMAIN" in caddy["environment"]


def test_only_caddy_is_reachable_from_outside() -> None:
    services = compose()["services"]
    assert [name for name, service in services.items() if "ports" in service] == ["caddy"]


def test_the_caddyfile_proxies_the_domain_to_the_bots_port_and_keeps_metrics_inside() -> None:
    caddyfile = (REPO / "Caddyfile").read_text()
    port = compose()["services"]["bot"]["environment"]["PORT"]
    assert re.search(r"^\{\$DOMAIN\} \{", caddyfile, re.MULTILINE)
    assert re.search(rf"^\s*reverse_proxy bot:{port}$", caddyfile, re.MULTILINE)
    inside = re.search(r"@inside path (.+)", caddyfile)
    assert inside is not None and {"/metrics", "/readyz"} <= set(inside.group(1).split())


def test_the_caddyfile_sends_the_discord_activitys_path_to_its_port() -> None:
    caddyfile = (REPO / "Caddyfile").read_text()
    settings = (REPO / ".env.example").read_text()
    port = re.search(r"^DISCORD_ACTIVITY_PORT=(\d+)", settings, re.MULTILINE)
    assert port is not None
    route = re.search(r"handle_path /discord/\* \{\s*reverse_proxy bot:(\d+)\s*\}", caddyfile)
    assert route is not None and route.group(1) == port.group(1)


@pytest.mark.parametrize(
    "name", ["DOMAIN", "COMPOSE_PROFILES", "TELEGRAM_TOKEN", "DISCORD_TOKEN", "DISCORD_SYNC"]
)
def test_env_example_names_what_compose_needs(name: str) -> None:
    settings = (REPO / ".env.example").read_text()
    assert re.search(rf"^{name}=", settings, re.MULTILINE)
