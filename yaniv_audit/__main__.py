"""``python -m yaniv_audit`` and the ``yaniv-audit`` console script: the same command line.

:func:`run` is the console script's entry point rather than ``cli.main`` itself, so
that a Ctrl-C (``kill -INT``) arriving while the command line is still being imported,
before any command can catch it, is the same one line and exit status 130 as
everywhere else, not an import's traceback.
"""

from __future__ import annotations

import sys


def interrupted() -> None:
    sys.stderr.write(("\n" if sys.stderr.isatty() else "") + "yaniv-audit: interrupted\n")
    sys.exit(130)


def run() -> None:
    try:
        from .cli import main
    except KeyboardInterrupt:
        interrupted()
    try:
        main()
    except KeyboardInterrupt:  # between the commands' own handling and the exit
        interrupted()


if __name__ == "__main__":
    run()
