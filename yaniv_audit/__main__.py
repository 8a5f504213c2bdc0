"""``python -m yaniv_audit``: the same command line as ``yaniv-audit``."""

from .cli import main

main()
