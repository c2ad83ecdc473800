"""The README shows what the build makes: a picture of every locale's page."""

import dataclasses
import warnings

from calc.formulas.model_states import Computation, Optimizer, TrainingRecipe
from sitebuild.config import LOCALES, PAGES, ROOT
from tools.screenshots import README, TABLE, picture, screenshot_table


def test_the_readme_pictures_every_locale_that_has_a_picture():
    """Every picture `make screenshots` took is in the table, in the locales' order, and no other.

    A locale without a picture yet (a language just added) is only a warning: taking one needs a browser and a build,
    which the fast tier does without.
    """
    table = TABLE.search(README.read_text(encoding="utf-8"))
    assert table, "the README lost its <!-- screenshots --> markers"
    pictured = [code for code in LOCALES if picture(code).is_file()]
    assert table[0] == table[1] + screenshot_table(pictured) + table[2], "run `make screenshots`"
    kept = {path.name for path in (ROOT / "docs").glob("screenshot-*.png")}
    assert kept == {picture(code).name for code in pictured}, "a picture of a locale the site no longer has"
    if missing := [code for code in LOCALES if code not in pictured]:
        warnings.warn(f"the README has no picture of {missing}: run `make screenshots`", stacklevel=1)


def test_the_readme_maps_every_calc_module():
    """Each of calc's modules has its row in "How it is put together", where a newcomer looks for it; the calculators
    share one, ``calc/<name>.py`` for each name in ``PAGES``, so that a new calculator needs no row of its own."""
    text = README.read_text(encoding="utf-8")
    map_ = text.split("## How it is put together", 1)[1].split("\n#", 1)[0]
    assert "`calc/<name>.py`, one per entry in `PAGES`" in map_
    calculators = {f"{name}.py" for name in PAGES}
    missing = [
        path.name
        for path in sorted((ROOT / "calc").glob("[!_]*.py"))
        if path.name not in calculators and f"`calc/{path.name}`" not in map_
    ]
    assert not missing, f"add a row to the README's module map for {missing}"


def test_the_readme_names_every_part_of_a_training_recipe():
    """ "Adding a training recipe" names each field of its record, and of the records it holds: all a recipe touches."""
    text = README.read_text(encoding="utf-8")
    section = text.split("### Adding a training recipe", 1)[1].split("\n#", 1)[0]
    records = (TrainingRecipe, Optimizer, Computation)
    named = [f"`{record.__name__}`" for record in records]
    named += [f"`{field.name}`" for record in (TrainingRecipe, Computation) for field in dataclasses.fields(record)]
    assert [name for name in named if name not in section] == []
