"""CLDR data Babel does not import, written by tools/minimum_grouping_digits.py: do not edit.

From the npm package cldr-numbers-full 47.0.0 (CLDR 47, the version of Babel's data).
"""

# The CLDR version of this data: a Babel of another must have it written anew (tests/test_formatting.py).
CLDR_VERSION = "47"

# <minimumGroupingDigits>, by Babel's locale identifier, where it is not the root's 1: the
# fewest digits a group left of the first separator must have for a number to be grouped at all.
MINIMUM_GROUPING_DIGITS = {
    "be": 2,
    "be_BY": 2,
    "be_TARASK": 2,
    "bg": 2,
    "bg_BG": 2,
    "ee": 3,
    "ee_GH": 3,
    "ee_TG": 3,
    "es": 2,
    "es_EA": 2,
    "es_ES": 2,
    "es_GQ": 2,
    "es_IC": 2,
    "es_PH": 2,
    "et": 2,
    "et_EE": 2,
    "hu": 2,
    "hu_HU": 2,
    "ia": 2,
    "ia_001": 2,
    "ie": 2,
    "ie_EE": 2,
    "it": 2,
    "it_CH": 2,
    "it_IT": 2,
    "it_SM": 2,
    "it_VA": 2,
    "ka": 2,
    "ka_GE": 2,
    "lv": 2,
    "lv_LV": 2,
    "pl": 2,
    "pl_PL": 2,
    "pt_CH": 2,
    "pt_CV": 2,
    "pt_GQ": 2,
    "pt_GW": 2,
    "pt_LU": 2,
    "pt_MO": 2,
    "pt_MZ": 2,
    "pt_PT": 2,
    "pt_ST": 2,
    "pt_TL": 2,
    "ru_UA": 2,
    "sl": 2,
    "sl_SI": 2,
    "sq": 2,
    "sq_AL": 2,
    "sq_MK": 2,
    "sq_XK": 2,
}
