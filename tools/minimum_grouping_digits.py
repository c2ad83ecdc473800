"""Write calc/cldr.py: CLDR's minimumGroupingDigits for every locale Babel has, which Babel does not import.

Run once per CLDR version, from the npm package cldr-numbers-full of the CLDR version Babel's data is (Babel 2.18:
CLDR 47), installed anywhere, e.g. ``npm install --prefix /tmp/cldr cldr-numbers-full@47.0.0``:

    .venv/bin/python tools/minimum_grouping_digits.py /tmp/cldr/node_modules/cldr-numbers-full
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from babel.core import get_cldr_version, get_global
from babel.localedata import locale_identifiers

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "calc" / "cldr.py"

# CLDR's root locale: a locale that inherits nothing else groups from two digits on (1,000).
ROOT_VALUE = 1


def minimum_grouping_digits(package: Path, identifier: str) -> int:
    """The value for Babel's locale ``identifier``, inherited as CLDR inherits (parent exceptions, else truncation).

    cldr-json's files are resolved, but default-content locales (en_US, es_ES) have none of their own.
    """
    parents = get_global("parent_exceptions")
    name = identifier
    while name and name != "root":
        path = package / "main" / name.replace("_", "-") / "numbers.json"
        if path.exists():
            numbers = json.loads(path.read_text(encoding="utf-8"))["main"][name.replace("_", "-")]["numbers"]
            return int(numbers["minimumGroupingDigits"])
        name = parents.get(name) or "_".join(name.split("_")[:-1])
    return ROOT_VALUE


def main(package: Path) -> None:
    version = json.loads((package / "package.json").read_text(encoding="utf-8"))["version"]
    if version.split(".")[0] != get_cldr_version():
        raise SystemExit(f"{package} is CLDR {version}, Babel's data CLDR {get_cldr_version()}")
    table = {name: minimum_grouping_digits(package, name) for name in sorted(locale_identifiers())}
    other = {name: value for name, value in table.items() if value != ROOT_VALUE}
    lines = "".join(f'    "{name}": {value},\n' for name, value in other.items())
    OUT.write_text(
        f'"""CLDR data Babel does not import, written by tools/minimum_grouping_digits.py: do not edit.\n\n'
        f"From the npm package cldr-numbers-full {version} (CLDR {get_cldr_version()}, the version of Babel's data).\n"
        f'"""\n\n'
        f"# The CLDR version of this data: a Babel of another must have it written anew (tests/test_formatting.py).\n"
        f'CLDR_VERSION = "{get_cldr_version()}"\n\n'
        f"# <minimumGroupingDigits>, by Babel's locale identifier, where it is not the root's {ROOT_VALUE}: the\n"
        f"# fewest digits a group left of the first separator must have for a number to be grouped at all.\n"
        f"MINIMUM_GROUPING_DIGITS = {{\n{lines}}}\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
