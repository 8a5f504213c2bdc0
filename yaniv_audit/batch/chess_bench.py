"""The python-chess comparison of ``yaniv-audit bench``.

A yardstick from outside the project: how fast does a well-kept library
replay game records? python-chess (an optional dependency, the ``bench``
extra) reads a set of PGN games and plays every move on a board; its plies
per second are set against the audit's events per second on one core.

The PGN games are made here, not downloaded: random legal games from a fixed
seed (SplitMix64, as the Yaniv simulator), played by python-chess itself
until the game is over or :data:`MAX_PLIES` moves were made, and kept in the
temp directory by python-chess's version, the number of games and the seed.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .simulate import Rng, derive_seed

#: the comparison's games and their seed
CHESS_GAMES = 200
CHESS_SEED = 1
#: a random game is cut here (random play rarely ends sooner; a real game has 70-90 plies)
MAX_PLIES = 120
INSTALL_HINT = (
    "python-chess is not installed, so the comparison with it is skipped: "
    "pip install 'yaniv-audit[bench]' (or pip install chess)"
)


def random_games_pgn(games: int, seed: int = CHESS_SEED, max_plies: int = MAX_PLIES) -> str:
    """``games`` random legal games as PGN text, the same for the same arguments and
    python-chess version (moves are chosen from ``board.legal_moves`` in its order)."""
    import chess
    import chess.pgn

    rng = Rng(derive_seed("chess", seed))
    texts = []
    for number in range(1, games + 1):
        board = chess.Board()
        while len(board.move_stack) < max_plies and not board.is_game_over():
            moves = list(board.legal_moves)
            board.push(moves[rng.below(len(moves))])
        game = chess.pgn.Game.from_board(board)
        game.headers["Event"] = "yaniv-audit bench: random legal moves"
        game.headers["Site"] = "yaniv-audit"
        game.headers["Round"] = str(number)
        game.headers["White"] = game.headers["Black"] = f"random (seed {seed})"
        texts.append(str(game))
    return "\n\n".join(texts) + "\n"


def replay_pgn(text: str) -> tuple[int, int]:
    """Read every game of ``text`` with python-chess and push each of its moves on a
    board: (games, plies). A game python-chess cannot read is an error."""
    import chess.pgn

    stream = io.StringIO(text)
    games = plies = 0
    while (game := chess.pgn.read_game(stream)) is not None:
        if game.errors:
            raise ValueError(f"python-chess could not read game {games + 1}: {game.errors[0]}")
        board = game.board()
        for move in game.mainline_moves():
            board.push(move)
            plies += 1
        games += 1
    return games, plies


def cached_pgn(games: int, seed: int) -> str:
    """:func:`random_games_pgn`, kept in the temp directory between runs."""
    import chess

    path = (
        Path(tempfile.gettempdir())
        / "yaniv-audit-bench"
        / f"chess-{chess.__version__}-g{games}-s{seed}-p{MAX_PLIES}.pgn"
    )
    if path.is_file():
        return path.read_text(encoding="utf-8")
    text = random_games_pgn(games, seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + f".partial-{os.getpid()}")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
    return text


def chess_run(
    games: int = CHESS_GAMES,
    seed: int = CHESS_SEED,
) -> tuple[Callable[[], tuple[int, int]] | None, dict[str, Any]]:
    """The run to time (python-chess replaying the games: (games, plies)) and what to say
    of it; or, when python-chess is not installed, None and ``{"skipped": INSTALL_HINT}``."""
    try:
        import chess
        import chess.pgn
    except ImportError:
        return None, {"skipped": INSTALL_HINT}
    text = cached_pgn(games, seed)
    return (lambda: replay_pgn(text)), {"version": chess.__version__, "bytes": len(text.encode())}


def chess_figures(
    info: dict[str, Any], seconds: float, result: tuple[int, int], runs: int
) -> dict[str, Any]:
    """The stage's figures from the best time of :func:`chess_run`'s run."""
    count, plies = result
    return {
        **info,
        "games": count,
        "plies": plies,
        "seconds": seconds,
        "runs": runs,
        "plies_per_s": plies / seconds,
    }
