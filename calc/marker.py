"""The mark of a message id, apart from the catalogs' loading (:mod:`calc.i18n`, which needs gettext).

It imports nothing, so :mod:`calc.formulas`, which imports no Babel or
gettext, marks the labels it holds with it too; the pages import it from
:mod:`calc.i18n`.
"""


def N_(message: str) -> str:
    """Mark ``message`` for the catalog; it is translated where it is shown.

    Babel's extractor collects ``N_`` calls by default.
    """
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message with a plural form for the catalog (the extractor's keyword ``Nn_:1,2``, set in
    :mod:`sitebuild.catalogs`); it is translated where it is shown, by the count's plural form."""
    return singular, plural
