"""Our formatter against the browser's own Intl.NumberFormat, over a sweep of values."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest
from babel import Locale

from calc.formatting import format_number, format_quantity

pytestmark = pytest.mark.browser


def sweep() -> list[str]:
    rng = random.Random(20261202)
    integers = set(range(1, 10_001))
    integers |= {10**k + d for k in range(4, 10) for d in (-1, 0, 1)}
    integers |= {rng.randint(1, 10**9) for _ in range(3000)}
    decimals = {format(Decimal(rng.randint(1, 10**9)).scaleb(-rng.randint(1, 6)), "f") for _ in range(3000)}
    decimals |= {"0.5", "0.3", "0.000001", "999999.999999", "1000.5", "9999.25", "10000.125"}
    return [str(i) for i in sorted(integers)] + sorted(decimals)


# Intl writes every digit it is given, as our formatter does (no rounding).
_INTL = """([locale, values]) => {
    const plain = new Intl.NumberFormat(locale, { maximumFractionDigits: 20 });
    const gigabytes = new Intl.NumberFormat(locale, { style: "unit", unit: "gigabyte", maximumFractionDigits: 20 });
    return values.map((v) => [plain.format(v), gigabytes.format(v)]);
}"""


def test_formatting_matches_the_browser(calculator):
    values = sweep()
    browser = calculator.evaluate(_INTL, [calculator.locale, values])
    locale = Locale.parse(calculator.locale)
    ours = [
        [format_number(Decimal(v), locale), format_quantity(Decimal(v), "digital-gigabyte", locale)] for v in values
    ]
    mismatches = [(v, b, o) for v, b, o in zip(values, browser, ours, strict=True) if b != o]
    assert mismatches == [], f"{len(mismatches)} of {len(values)} differ, e.g. {mismatches[:5]}"
