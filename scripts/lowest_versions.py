"""Print a pip constraints file that pins every runtime dependency to the lowest release pyproject.toml admits.

    python3 -m venv /tmp/oldest && /tmp/oldest/bin/pip install -e ".[test]" -c <(python3 scripts/lowest_versions.py)

CONTRIBUTING.md ("The oldest releases we accept") says when to run it. Only the standard library is used, so
any Python 3.11 runs it before anything is installed."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*([^;]*)(;.*)?$")


def lowest_pins(dependencies: list[str]) -> list[str]:
    """`name==lowest` for each requirement with a `>=` bound, its environment marker kept."""
    pins = []
    for requirement in dependencies:
        match = REQUIREMENT.match(requirement)
        if match is None:
            raise ValueError(f"cannot read the requirement {requirement!r}")
        name, versions, marker = match.groups()
        lowest = re.search(r">=\s*([0-9][0-9A-Za-z.]*)", versions)
        if lowest:
            pins.append(f"{name}=={lowest.group(1)}{marker or ''}")
    return pins


def main() -> int:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    print("\n".join(lowest_pins(project["dependencies"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
