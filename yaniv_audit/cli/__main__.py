"""``python -m yaniv_audit.cli``: the command line (the console script is
``yaniv_audit.__main__:run``)."""

from . import main

main()
