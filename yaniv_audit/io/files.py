"""The log files a command names: files, directories searched for .jsonl and .json
files, and quoted globs (the command line and the benchmark read logs the same way)."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from pathlib import Path


def log_files(paths: tuple[str, ...]) -> list[str]:
    """Files named, and the .jsonl/.json files under directories named, in order.

    A quoted glob (``'logs/**/*.jsonl'``, for a shell that did not expand it, or a
    list too long for one) names the files it matches.
    """
    files: list[str] = []
    for path in paths:
        p = Path(path)
        if not p.exists() and glob.has_magic(path):
            files.extend(sorted(f for f in glob.glob(path, recursive=True) if Path(f).is_file()))
            continue
        if p.is_dir():
            files.extend(sorted(_logs_under(str(p))))
        else:
            files.append(path)
    return files


def _logs_under(top: str) -> Iterator[str]:
    """The .jsonl/.json files under the directory ``top`` (``str(Path(...))``), named as
    ``Path(top) / ...`` names them; symbolic links to directories are not followed.

    ``os.walk`` holds one directory's names at a time, where ``Path.rglob`` keeps every
    path it has yielded (60 MiB for 100,000 logs)."""
    for root, _dirs, names in os.walk(top):
        for name in names:
            if os.path.splitext(name)[1] in (".jsonl", ".json"):
                path = os.path.join(root, name)
                if os.path.isfile(path):
                    yield path[2:] if top == "." else path  # Path(".") / "x" is "x"
