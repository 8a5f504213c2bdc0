"""One or two examples for each command's ``--help`` (click's epilog), as httpie and
sqlite-utils give them: the command's usual use, with the sample games of replays/ or
the files the other examples make. tests/cli/test_cli_help.py checks every command has
some, and that each names its command."""

from __future__ import annotations

import click

#: each command (its words after ``yaniv-audit``) and its examples, one a line
EXAMPLES: dict[str, list[str]] = {
    "template": [
        "yaniv-audit template friday.jsonl && yaniv-audit audit friday.jsonl",
        "yaniv-audit template > friday.jsonl",
    ],
    "validate": [
        "yaniv-audit validate friday.jsonl",
        "yaniv-audit validate logs/*.jsonl --json",
    ],
    "audit": [
        "yaniv-audit audit replays/middle-card.jsonl --rules classic",
        "yaniv-audit audit --db --exit-zero",
    ],
    "compare": [
        "yaniv-audit compare replays/yaniv-over-limit.jsonl --rules israeli --rules classic",
    ],
    "replay": [
        "yaniv-audit replay replays/slap-down.jsonl",
        "yaniv-audit replay replays/slap-down.jsonl --seat shir",
    ],
    "rules list": ["yaniv-audit rules list", "yaniv-audit rules list --json"],
    "rules show": [
        "yaniv-audit rules show",
        'yaniv-audit rules show "israeli(yaniv_max=5)"',
    ],
    "rules fit": [
        "yaniv-audit rules fit replays/yaniv-over-limit.jsonl",
        "yaniv-audit rules fit friday.jsonl --from classic --json",
    ],
    "fingerprint": ["yaniv-audit fingerprint replays/wrong-score.jsonl"],
    "prove": [
        "yaniv-audit prove replays/wrong-score.jsonl --event 15 > proof.json",
        "yaniv-audit prove friday.jsonl --since 30 > grew.json",
    ],
    "verify-proof": [
        "yaniv-audit verify-proof proof.json --fingerprint HEX",
        "yaniv-audit prove friday.jsonl --since 30 | yaniv-audit verify-proof - --fingerprint HEX",
    ],
    "simulate": [
        "yaniv-audit simulate --out game.jsonl",
        "yaniv-audit simulate --rules classic --games 100 --record mixed --out games/",
    ],
    "bench": [
        "yaniv-audit bench --games 300 --players 4",
        "yaniv-audit bench --check --json",
    ],
    "ingest": [
        "yaniv-audit ingest replays/",
        "yaniv-audit ingest --db club.duckdb logs/*.jsonl",
    ],
    "ingest-results": ["yaniv-audit ingest-results results/"],
    "report": [
        "yaniv-audit report leaderboard",
        "yaniv-audit report players --rules classic --rules namu --format csv",
    ],
    "odds assaf": ["yaniv-audit odds assaf 5 --players 4"],
    "odds deal": ['yaniv-audit odds deal --rules "israeli(hand_size=7)"'],
    "query": [
        'yaniv-audit query "SELECT code, count(*) FROM findings GROUP BY code" --csv',
        "yaniv-audit query",
    ],
    "export": ["yaniv-audit export parquet/ --by month"],
    "verify": ["yaniv-audit verify", "yaniv-audit verify --audits --checkpoint kept.json"],
    "checkpoint": ["yaniv-audit checkpoint --json > kept.json"],
    "serve": [
        "yaniv-audit serve --demo",
        "yaniv-audit serve --host 0.0.0.0 --port 8080 --db club.duckdb",
    ],
    "table open": [
        "yaniv-audit table open --players dana,lior,omer",
        "yaniv-audit table open --players dana,lior --url http://192.168.1.20:5000",
    ],
}


def epilog(examples: list[str]) -> str:
    """The examples as click's epilog: a block it prints as written (``\\b``)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in examples)


def add_examples(group: click.Group, path: tuple[str, ...] = ()) -> None:
    """Give each command of ``group`` (and of its groups) its examples' epilog."""
    for name, command in group.commands.items():
        words = (*path, name)
        if isinstance(command, click.Group):
            add_examples(command, words)
        elif " ".join(words) in EXAMPLES:
            command.epilog = epilog(EXAMPLES[" ".join(words)])
