"""What the page shows for given inputs, in Spanish and Italian: results, errors, prompts."""

import json
from decimal import Decimal

import pytest
from babel import Locale

from calc.accumulation import CALCULATOR, effective_batch_size, peak_activation_memory
from calc.browser import evaluator
from calc.evaluation import default_texts, evaluate
from calc.i18n import load_translations

DEFAULTS = {"micro_batch": "4", "accumulation_steps": "8", "gpus": "1", "activation_per_sample": "0,5"}


@pytest.fixture(params=["es", "it"])
def locale(request):
    return request.param


def view(localedir, locale, **texts):
    return evaluate(CALCULATOR, {**DEFAULTS, **texts}, Locale.parse(locale), load_translations(localedir, locale))


def test_formulas():
    assert effective_batch_size(Decimal(4), Decimal(8), Decimal(4)) == 128
    assert peak_activation_memory(Decimal(4), Decimal("0.5")) == 2


def test_default_texts_are_the_seeded_values(locale):
    assert default_texts(CALCULATOR, Locale.parse(locale)) == DEFAULTS


@pytest.mark.parametrize(
    ("texts", "effective", "memory"),
    [
        ({}, "32", "2 GB"),
        ({"gpus": "4"}, "128", "2 GB"),
        ({"accumulation_steps": "16"}, "64", "2 GB"),
        ({"micro_batch": "3", "activation_per_sample": "0,1"}, "24", "0,3 GB"),
        ({"micro_batch": "999999", "activation_per_sample": "0,999999"}, "7.999.992", "999.998,000001 GB"),
        (
            {
                "micro_batch": "1.000.000",
                "accumulation_steps": "1.000.000",
                "gpus": "1.000.000",
                "activation_per_sample": "10000",
            },
            "1.000.000.000.000.000.000",
            "10.000.000.000 GB",
        ),
    ],
)
def test_results(localedir, locale, texts, effective, memory):
    shown = view(localedir, locale, **texts)
    assert shown.outputs == {"effective_batch": effective, "activation_memory": memory}
    assert shown.prompt is None
    assert set(shown.errors.values()) == {None}


def test_four_digit_results_stay_ungrouped(localedir, locale):
    assert view(localedir, locale, micro_batch="10", accumulation_steps="100").outputs["effective_batch"] == "1000"
    assert view(localedir, locale, micro_batch="10", accumulation_steps="1000").outputs["effective_batch"] == "10.000"


ERRORS = [
    ("micro_batch", "abc", "Introduce un número entero, por ejemplo 4.", "Inserisci un numero intero, per esempio 4."),
    ("micro_batch", "4,5", "Introduce un número entero, sin decimales.", "Inserisci un numero intero, senza decimali."),
    (
        "accumulation_steps",
        "1.5",
        "Introduce un número entero, sin decimales.",
        "Inserisci un numero intero, senza decimali.",
    ),
    ("micro_batch", "0", "El valor mínimo es 1.", "Il valore minimo è 1."),
    ("gpus", "-3", "El valor mínimo es 1.", "Il valore minimo è 1."),
    ("gpus", "2000000", "El valor máximo es 1.000.000.", "Il valore massimo è 1.000.000."),
    ("gpus", "9" * 5000, "El valor máximo es 1.000.000.", "Il valore massimo è 1.000.000."),
    ("activation_per_sample", "x", "Introduce un número, por ejemplo 0,5.", "Inserisci un numero, per esempio 0,5."),
    (
        "activation_per_sample",
        "0.5",
        "Los decimales se separan con coma: escribe 0,5.",
        "I decimali si separano con la virgola: scrivi 0,5.",
    ),
    (
        "activation_per_sample",
        "1.250,5",
        "Escribe el número sin separadores de miles: 1250,5.",
        "Scrivi il numero senza separatori delle migliaia: 1250,5.",
    ),
    ("activation_per_sample", "0", "Introduce un valor mayor que 0 GB.", "Inserisci un valore maggiore di 0 GB."),
    ("activation_per_sample", "-0,5", "Introduce un valor mayor que 0 GB.", "Inserisci un valore maggiore di 0 GB."),
    ("activation_per_sample", "20000", "El valor máximo es 10.000 GB.", "Il valore massimo è 10.000 GB."),
    ("activation_per_sample", "0,0000001", "Usa como máximo 6 decimales.", "Usa al massimo 6 cifre decimali."),
    # A decimal point whose comma version would be refused too: say why.
    ("activation_per_sample", "0.0000001", "Usa como máximo 6 decimales.", "Usa al massimo 6 cifre decimali."),
    ("activation_per_sample", "0." + "5" * 5000, "Usa como máximo 6 decimales.", "Usa al massimo 6 cifre decimali."),
]


@pytest.mark.parametrize(("name", "text", "spanish", "italian"), ERRORS, ids=[f"{e[0]}={e[1][:12]}" for e in ERRORS])
def test_each_bad_input_is_explained_and_hides_the_results(localedir, locale, name, text, spanish, italian):
    shown = view(localedir, locale, **{name: text})
    assert shown.errors[name] == {"es": spanish, "it": italian}[locale]
    assert [n for n, error in shown.errors.items() if error] == [name]
    assert shown.outputs == {"effective_batch": "", "activation_memory": ""}
    assert (
        shown.prompt
        == {
            "es": "Corrige el valor marcado para ver los resultados.",
            "it": "Correggi il valore evidenziato per vedere i risultati.",
        }[locale]
    )


def test_several_bad_inputs_are_counted(localedir, locale):
    shown = view(localedir, locale, micro_batch="0", gpus="x")
    assert (
        shown.prompt
        == {
            "es": "Corrige los 2 valores marcados para ver los resultados.",
            "it": "Correggi i 2 valori evidenziati per vedere i risultati.",
        }[locale]
    )


@pytest.mark.parametrize("blank", ["", "   "])
def test_an_empty_field_asks_for_a_value_without_an_error(localedir, locale, blank):
    shown = view(localedir, locale, accumulation_steps=blank)
    assert set(shown.errors.values()) == {None}
    assert shown.outputs == {"effective_batch": "", "activation_memory": ""}
    assert (
        shown.prompt
        == {
            "es": "Rellena todos los campos para ver los resultados.",
            "it": "Compila tutti i campi per vedere i risultati.",
        }[locale]
    )


def test_an_error_outranks_an_empty_field(localedir):
    shown = view(localedir, "es", micro_batch="", gpus="0")
    assert shown.prompt == "Corrige el valor marcado para ver los resultados."


def test_the_worker_entry_point_speaks_json(localedir):
    evaluate_json = evaluator("accumulation", "it", str(localedir))
    answer = json.loads(evaluate_json(json.dumps({**DEFAULTS, "gpus": 4, "unknown": "<b>"})))
    assert answer == {
        "errors": {name: None for name in DEFAULTS},
        "outputs": {"effective_batch": "128", "activation_memory": "2 GB"},
        "prompt": None,
        "announcement": "Dimensione effettiva del batch: 128. Picco di memoria delle attivazioni per GPU: 2 GB.",
    }


def test_what_a_screen_reader_hears(localedir):
    assert (
        view(localedir, "es").announcement
        == "Tamaño de lote efectivo: 32. Memoria de activaciones máxima por GPU: 2 GB."
    )
    assert view(localedir, "es", gpus="0").announcement == "El valor mínimo es 1."
    assert view(localedir, "it", gpus="").announcement == "Compila tutti i campi per vedere i risultati."
