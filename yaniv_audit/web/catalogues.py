"""The old name of ``python -m yaniv_audit.lang.catalogues update|check|fill FILE.json``
(the catalogues moved to the language layer, :mod:`yaniv_audit.lang`)."""

from __future__ import annotations

import sys

from ..lang.catalogues import extract, fill, main, untranslated, updated

__all__ = ["extract", "fill", "main", "untranslated", "updated"]

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
