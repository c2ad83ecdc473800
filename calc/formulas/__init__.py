"""The arithmetic behind every page, with its sources: counts of parameters and bytes of memory.

These modules import no Babel, gettext or view code, so that ``make
validate`` and any script can use them with nothing but the standard
library. The calculator modules in :mod:`calc` declare the pages around them.
"""
