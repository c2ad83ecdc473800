"""What a reader of the Italian pages sees."""

from tests.expectations import Expectations

EXPECTED = Expectations(
    title="Calcolatore della memoria per l’accumulo del gradiente",
    example=(
        "la dimensione effettiva del batch sale a 256"
        " e il picco di memoria delle attivazioni per GPU resta fermo a 7,45 GB"
    ),
    formulas=("E = b ⋅ a ⋅ g", "M = b ⋅ A", "E = 1 ⋅ 64 ⋅ 1 = 64", "M = 1 ⋅ 7,45 = 7,45\u00a0GB"),
    ready="I risultati si aggiornano mentre scrivi.",
    failed="Non è stato possibile avviare il calcolatore interattivo in questo browser.",
    prompt_empty="Compila il campo «Passi di accumulo» per vedere i risultati.",
    prompt_two_empty="Compila i campi «Passi di accumulo» e «GPU in parallelismo dei dati» per vedere i risultati.",
    prompt_invalid="Correggi il valore evidenziato per vedere i risultati.",
    prompt_two_invalid="Correggi i valori evidenziati (2 in tutto) per vedere i risultati.",
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
        # CLDR: Italian groups (since CLDR 46) only from five digits on.
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
        ("micro_batch", "abc", "Inserisci un numero intero, per esempio 1."),
        ("micro_batch", "4,5", "Inserisci un numero intero, senza decimali."),
        ("accumulation_steps", "1.5", "Inserisci un numero intero, senza decimali."),
        ("gpus", "4 GPU", "Scrivi solo il numero."),
        ("micro_batch", "0", "Il valore minimo è 1."),
        ("gpus", "-3", "Il valore minimo è 1."),
        ("gpus", "2000000", "Il valore massimo è 1.000.000."),
        ("gpus", "9" * 5000, "Il valore massimo è 1.000.000."),
        ("activation_per_sample", "x", "Inserisci un numero, per esempio 7,45."),
        ("activation_per_sample", "0.5", "I decimali si separano con la virgola: scrivi 0,5."),
        ("activation_per_sample", "1,250.5", "I decimali si separano con la virgola: scrivi 1250,5."),
        (
            "activation_per_sample",
            "1,125",
            "Intendevi 1,1250 o 1125? Riscrivilo esattamente in una di queste due forme.",
        ),
        ("activation_per_sample", "1,000,000", "Il valore massimo è 10.000\u00a0GB."),
        ("activation_per_sample", "1.500", "Intendevi 1500 o 1,5? Riscrivilo esattamente in una di queste due forme."),
        ("activation_per_sample", "10.000", "Intendevi 10000 o 10? Riscrivilo esattamente in una di queste due forme."),
        ("activation_per_sample", "0,5 MB", "Scrivi solo il numero, espresso in GB."),
        ("activation_per_sample", "0", "Inserisci un valore maggiore di 0\u00a0GB."),
        ("activation_per_sample", "-0,5", "Inserisci un valore maggiore di 0\u00a0GB."),
        ("activation_per_sample", "20000", "Il valore massimo è 10.000\u00a0GB."),
        ("activation_per_sample", "0,0000001", "Usa al massimo 6 cifre decimali."),
        # The other decimal mark, whose rewrite would be refused too: say why.
        ("activation_per_sample", "0.0000001", "Usa al massimo 6 cifre decimali."),
        ("activation_per_sample", "0." + "5" * 5000, "Usa al massimo 6 cifre decimali."),
    ),
    announcements=(
        ({}, "Dimensione effettiva del batch: 64. Picco di memoria delle attivazioni per GPU: 7,45\u00a0GB."),
        (
            {"micro_batch": "128"},
            "Dimensione effettiva del batch: 8192. Picco di memoria delle attivazioni per GPU: 953,60\u00a0GB.",
        ),
        ({"gpus": "0"}, "GPU in parallelismo dei dati. Il valore minimo è 1."),
        (
            {"micro_batch": "0", "activation_per_sample": "0.5", "memory_budget": "12"},
            "Dimensione del micro-batch. Il valore minimo è 1. "
            "Memoria delle attivazioni per campione. I decimali si separano con la virgola: scrivi 0,5.",
        ),
        ({"gpus": ""}, "Compila il campo «GPU in parallelismo dei dati» per vedere i risultati."),
    ),
    numbers=(
        ("0", "0", "0 GB"),
        ("1", "1", "1 GB"),
        ("999", "999", "999 GB"),
        # CLDR's minimumGroupingDigits is 2 for Italian: four digits stay ungrouped.
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
    parallel_degrees="parallelismo tensoriale, di pipeline o di contesto",
    drops_samples=r"scart\w* campioni|senza alcun avviso",
    not_modelled=(
        "Il picco del passo è modellato per le architetture {modelled}: per questa, inserisci la memoria delle "
        "attivazioni."
    ),
    expert_width=(
        "In questo tipo di modello la larghezza degli esperti coincide con la dimensione intermedia: inserisci lo "
        "stesso valore."
    ),
    not_one_sample=(
        "Nemmeno un campione entra in memoria.",
        "Per fare spazio a un micro-batch di un solo campione, scegli una di queste soluzioni:",
        (
            "accorcia le sequenze a 2944\u00a0token (il passo entra con un margine sufficiente)",
            "passa a QLoRA (la verifica tiene conto delle copie in fp32 aggiunte da prepare_model_for_kbit_training di "
            "peft)",
            "usa più GPU con ZeRO-3 (il passo entra con un margine sufficiente a partire da 2\u00a0GPU)",
            "scegli una GPU con più memoria (con un margine sufficiente sulla NVIDIA A100-SXM4-40GB e "
            "sulle schede dell’elenco con più memoria)",
        ),
        "Anche questa modifica potrebbe liberare memoria a sufficienza, ma questo calcolatore non può verificarlo: "
        "fai calcolare la loss a blocchi (use_liger_kernel=True nel Trainer, un’impostazione che questa pagina non "
        "prevede).",
    ),
)
