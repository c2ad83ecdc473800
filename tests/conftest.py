"""Fixtures shared by the unit, build and browser tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from build import build
from sitebuild.catalogs import compile_catalogs
from sitebuild.config import LOCALES_DIR

LOCALES = [pytest.param("es", id="es"), pytest.param("it", id="it")]


@pytest.fixture(scope="session")
def localedir() -> Path:
    """The catalogs, compiled as the build compiles them."""
    compile_catalogs(LOCALES_DIR)
    return LOCALES_DIR


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The whole site, built once for the session into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    build(out)
    yield out
