"""What a reader of the Spanish pages sees."""

from tests.expectations import Expectations

EXPECTED = Expectations(
    title="Calculadora de memoria para la acumulación de gradientes",
    example=(
        "el tamaño de lote efectivo sube a 256"
        ", mientras que el pico de memoria de activaciones por GPU se mantiene en 7,45 GB"
    ),
    formulas=("E = b ⋅ a ⋅ g", "M = b ⋅ A", "E = 1 ⋅ 64 ⋅ 1 = 64", "M = 1 ⋅ 7,45 = 7,45\u00a0GB"),
    ready="Los resultados se actualizan mientras escribes.",
    failed="No se ha podido iniciar la calculadora interactiva en este navegador.",
    prompt_empty="Completa el campo «Pasos de acumulación» para ver los resultados.",
    prompt_two_empty=(
        "Completa los campos «Pasos de acumulación» y «GPU en paralelismo de datos» para ver los resultados."
    ),
    prompt_invalid="Corrige el valor marcado para ver los resultados.",
    prompt_two_invalid="Corrige los 2 valores marcados para ver los resultados.",
    defaults={
        "micro_batch": "1",
        "accumulation_steps": "64",
        "gpus": "1",
        "activation_per_sample": "7,45",
        "memory_budget": "8,01",
    },
    results=(
        ({}, "64", "7,45\u00a0GB"),
        ({"micro_batch": "8"}, "512", "59,60\u00a0GB"),
        ({"accumulation_steps": "16"}, "16", "7,45\u00a0GB"),
        ({"gpus": "4"}, "256", "7,45\u00a0GB"),
        ({"gpus": "1.024"}, "65.536", "7,45\u00a0GB"),
        ({"gpus": "1 024"}, "65.536", "7,45\u00a0GB"),
        # CLDR: Spanish groups only from five digits on.
        ({"micro_batch": "10", "accumulation_steps": "100"}, "1000", "74,50\u00a0GB"),
        ({"activation_per_sample": "1,25"}, "64", "1,25\u00a0GB"),
        ({"micro_batch": "3", "activation_per_sample": "0,1"}, "192", "0,30\u00a0GB"),
        ({"activation_per_sample": "0,5 GB"}, "64", "0,50\u00a0GB"),
        ({"activation_per_sample": "0,5gb"}, "64", "0,50\u00a0GB"),
        ({"activation_per_sample": "1.250,5"}, "64", "1250,50\u00a0GB"),
        ({"micro_batch": "999999", "activation_per_sample": "0,999999"}, "63.999.936", "999.998,000001\u00a0GB"),
        (
            {"micro_batch": "1.000.000", "accumulation_steps": "1.000.000", "gpus": "1.000.000"},
            "1.000.000.000.000.000.000",
            "7.450.000,00\u00a0GB",
        ),
    ),
    errors=(
        ("micro_batch", "abc", "Introduce un número entero, como 1."),
        ("micro_batch", "4,5", "Introduce un número entero, sin decimales."),
        ("accumulation_steps", "1.5", "Introduce un número entero, sin decimales."),
        ("gpus", "4 GPU", "Escribe solo el número."),
        ("micro_batch", "0", "El valor mínimo es 1."),
        ("gpus", "-3", "El valor mínimo es 1."),
        ("gpus", "2000000", "El valor máximo es 1.000.000."),
        ("gpus", "9" * 5000, "El valor máximo es 1.000.000."),
        ("activation_per_sample", "x", "Introduce un número, como 7,45."),
        ("activation_per_sample", "0.5", "Separa los decimales con coma: 0,5."),
        ("activation_per_sample", "1,250.5", "Separa los decimales con coma: 1250,5."),
        ("activation_per_sample", "1,000,000", "El valor máximo es 10.000\u00a0GB."),
        (
            "activation_per_sample",
            "1.500",
            "¿Te refieres a 1500 o a 1,5? Escribe el número que quieras tal como aparece aquí: así no hay duda.",
        ),
        (
            "activation_per_sample",
            "10.000",
            "¿Te refieres a 10000 o a 10? Escribe el número que quieras tal como aparece aquí: así no hay duda.",
        ),
        (
            "activation_per_sample",
            "1,125",
            "¿Te refieres a 1,1250 o a 1125? Escribe el número que quieras tal como aparece aquí: así no hay duda.",
        ),
        ("activation_per_sample", "0,5 MB", "Escribe solo el número, en GB."),
        ("activation_per_sample", "0", "Introduce un valor mayor que 0\u00a0GB."),
        ("activation_per_sample", "-0,5", "Introduce un valor mayor que 0\u00a0GB."),
        ("activation_per_sample", "20000", "El valor máximo es 10.000\u00a0GB."),
        ("activation_per_sample", "0,0000001", "Usa como máximo 6 decimales."),
        # The other decimal mark, whose rewrite would be refused too: say why.
        ("activation_per_sample", "0.0000001", "Usa como máximo 6 decimales."),
        ("activation_per_sample", "0." + "5" * 5000, "Usa como máximo 6 decimales."),
    ),
    announcements=(
        ({}, "Tamaño de lote efectivo: 64. Pico de memoria de activaciones por GPU: 7,45\u00a0GB."),
        (
            {"micro_batch": "128"},
            "Tamaño de lote efectivo: 8192. Pico de memoria de activaciones por GPU: 953,60\u00a0GB.",
        ),
        ({"gpus": "0"}, "GPU en paralelismo de datos. El valor mínimo es 1."),
        (
            {"micro_batch": "0", "activation_per_sample": "0.5", "memory_budget": "12"},
            "Tamaño de microlote. El valor mínimo es 1. "
            "Memoria de activaciones por muestra. Separa los decimales con coma: 0,5.",
        ),
        ({"gpus": ""}, "Completa el campo «GPU en paralelismo de datos» para ver los resultados."),
    ),
    numbers=(
        ("0", "0", "0 GB"),
        ("1", "1", "1 GB"),
        ("999", "999", "999 GB"),
        # CLDR's minimumGroupingDigits is 2 for Spanish: four digits stay ungrouped.
        ("1000", "1000", "1000 GB"),
        ("9999", "9999", "9999 GB"),
        ("10000", "10.000", "10.000 GB"),
        ("1234567", "1.234.567", "1.234.567 GB"),
        ("0.5", "0,5", "0,5 GB"),
        ("0.50", "0,5", "0,5 GB"),
        ("2.0", "2", "2 GB"),
        ("0.3", "0,3", "0,3 GB"),
        ("0.000001", "0,000001", "0,000001 GB"),
        ("1234.125", "1234,125", "1234,125 GB"),
        ("12345.678901", "12.345,678901", "12.345,678901 GB"),
    ),
    gigabyte="GB",
    parallel_degrees="Con paralelismo de tensores, de pipeline o de contexto",
    drops_samples=r"descart\w* muestras|sin avisar",
    not_modelled=(
        "El pico del paso está modelado para las arquitecturas {modelled}: para esta, introduce la memoria de "
        "activaciones."
    ),
    expert_width=(
        "Los expertos de esta arquitectura tienen la anchura de su dimensión intermedia: introduce el mismo valor."
    ),
    not_one_sample=(
        "No cabe ni una muestra.",
        "Para hacer sitio a un microlote de una sola muestra, basta con una de estas opciones:",
        (
            "acorta las secuencias a un máximo de 2944\u00a0tokens (así cabe con margen)",
            "entrena con QLoRA (contando las copias en fp32 que añade la función prepare_model_for_kbit_training de "
            "peft)",
            "reparte el entrenamiento entre varias GPU con ZeRO-3 (con margen a partir de 2\u00a0GPU)",
            "elige una GPU con más memoria (con margen en la NVIDIA A100-SXM4-40GB y en las tarjetas de la lista con "
            "más memoria)",
        ),
        "Hay otra opción que podría hacer sitio, aunque esta calculadora no puede comprobarlo: calcula la pérdida por "
        "bloques de tokens (use_liger_kernel=True en el Trainer; el formulario no tiene ningún campo para ello).",
    ),
)
