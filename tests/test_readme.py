"""The README shows what the build makes: a picture of every locale's page."""

from sitebuild.config import LOCALES, ROOT
from tools.screenshots import README, TABLE, screenshot_table


def test_the_readme_pictures_every_locale():
    table = TABLE.search(README.read_text(encoding="utf-8"))
    assert table, "the README lost its <!-- screenshots --> markers"
    assert table[0] == table[1] + screenshot_table() + table[2], "run `make screenshots`"
    for code in LOCALES:
        assert (ROOT / "docs" / f"screenshot-{code}.png").is_file(), "run `make screenshots`"


def test_the_readme_maps_every_calc_module():
    """Each of calc's modules has its row in "How it is put together", where a newcomer looks for it."""
    text = README.read_text(encoding="utf-8")
    map_ = text.split("## How it is put together", 1)[1].split("\n#", 1)[0]
    missing = [path.name for path in sorted((ROOT / "calc").glob("[!_]*.py")) if f"`calc/{path.name}`" not in map_]
    assert not missing, f"add a row to the README's module map for {missing}"
