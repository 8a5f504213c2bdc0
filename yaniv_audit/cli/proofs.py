"""A log's fingerprint and its proofs: ``fingerprint``, ``prove``, ``verify-proof``."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..core.merkle import (
    ProofError,
    is_consistency_proof,
    make_consistency_proof,
    make_proof,
    tree_hash,
    verify_consistency_proof,
    verify_proof,
)
from .options import EXIT_BAD_INPUT, EXIT_FOUND, EXIT_OK, read_log_or_exit
from .render import echo, emit_json, fail
from .render import shown as one_line


@click.command()
@click.argument("log", type=click.Path(dir_okay=False))
def fingerprint(log: str) -> None:
    """Print LOG's fingerprint: the RFC 6962 Merkle tree hash of its events."""
    echo(tree_hash(read_log_or_exit(log).leaves).hex())


@click.command()
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("--event", "index", type=int, default=None, help="0-based event index")
@click.option(
    "--since",
    "old_size",
    type=int,
    default=None,
    metavar="M",
    help="prove instead that the log's first M events are the log fingerprinted "
    "when it had M events, unchanged",
)
def prove(log: str, index: int | None, old_size: int | None) -> None:
    """Print an inclusion proof of event N of LOG as JSON (or, with --since M, a
    consistency proof: LOG extends its first M events without changing them)."""
    if (index is None) == (old_size is None):
        raise click.UsageError(
            "give --event N (an inclusion proof) or --since M (a consistency proof)"
        )
    leaves = read_log_or_exit(log).leaves
    if old_size is not None:
        if not 1 <= old_size <= len(leaves):
            raise click.BadParameter(
                f"the log has {len(leaves)} events; M is 1 to {len(leaves)}, not {old_size}",
                param_hint="--since",
            )
        emit_json(make_consistency_proof(leaves, old_size))
        return
    assert index is not None
    if not 0 <= index < len(leaves):
        raise click.BadParameter(
            f"the log has events 0 to {len(leaves) - 1}, not {index}", param_hint="--event"
        )
    emit_json(make_proof(leaves, index))


def hex_fingerprint(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A fingerprint given on the command line: 64 hex digits, else wrong usage."""
    text = value.strip()
    if len(text) != 64 or not all(c in "0123456789abcdefABCDEF" for c in text):
        shown = text if len(text) <= 70 else text[:67] + "..."
        raise click.BadParameter(f"expected 64 hex digits, got {shown!r} ({len(text)} characters)")
    return text


@click.command("verify-proof")
@click.argument("proof", type=click.File("rb"))
@click.option(
    "--fingerprint",
    "fingerprint_hex",
    required=True,
    metavar="HEX",
    callback=hex_fingerprint,
    help="the fingerprint you trust (64 hex digits): of the log, or for a "
    "consistency proof of the earlier log",
)
@click.option("--json", "as_json", is_flag=True, help="the answer as one JSON object")
def verify_proof_cmd(proof: Any, fingerprint_hex: str, as_json: bool) -> None:
    """Check a PROOF (a file, or - for standard input) against a fingerprint you trust.

    An inclusion proof shows an event is in the log; a consistency proof shows a
    log extends the earlier log with that fingerprint, without changing it.
    """
    data = proof.read()
    trusted = fingerprint_hex.strip().lower()
    consistency = is_consistency_proof(data)
    try:
        if consistency:
            ok = verify_consistency_proof(data, fingerprint_hex)
        else:
            ok = verify_proof(data, fingerprint_hex)
    except ProofError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    shown = json.loads(data)  # well-formed: the verifier has checked it
    if as_json:
        answer: dict[str, Any] = {
            "valid": ok,
            "proof": "consistency" if consistency else "inclusion",
            "trusted": trusted,
            "fingerprint": shown["fingerprint"].lower(),
            "tree_size": shown["tree_size"],
        }
        if consistency:
            answer["old_size"] = shown["old_size"]
        else:
            answer |= {"index": shown["index"], "type": shown["event"].get("type")}
        emit_json(answer)
        sys.exit(EXIT_OK if ok else EXIT_FOUND)
    if consistency:
        if not ok:
            echo(
                "invalid: the proof does not show that log extends the log with that fingerprint",
                painted=True,
            )
            sys.exit(EXIT_FOUND)
        echo(
            one_line(
                f"valid: the log {shown['fingerprint'].lower()} "
                f"({shown['tree_size']} events) extends the log {trusted} "
                f"({shown['old_size']} events) without changing it"
            ),
            painted=True,
        )
        sys.exit(EXIT_OK)
    if not ok:
        echo(
            "invalid: the proof does not show that event in the log with that fingerprint",
            painted=True,
        )
        sys.exit(EXIT_FOUND)
    echo(
        one_line(
            f"valid: event {shown['index']} ({shown['event'].get('type', 'no type')}) "
            f"is in the log {trusted}"
        ),
        painted=True,
    )
    sys.exit(EXIT_OK)


#: the commands this module adds to `yaniv-audit`
COMMANDS: list[click.Command] = [fingerprint, prove, verify_proof_cmd]
