"""Rule sets: one frozen value holding every house-rule parameter (docs/rules.md).

A rule set is found by a preset name and optional overrides, written as a
canonical id such as ``israeli(assaf_penalty=50,yaniv_max=5)``.

>>> r = parse_rules("israeli( yaniv_max = 5, pickup=\\"any\\")")
>>> r.id
'israeli(pickup=any,yaniv_max=5)'
>>> parse_rules(r.id) == r, r == parse_rules("classic(pickup=any)")
(True, True)
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import RulesError, did_you_mean

Reductions = tuple[tuple[int, int], ...]

#: the bound of every score and points parameter (limits, penalties, card values, the
#: reduction table's scores): far above any table's game, and a whole number every
#: JSON reader and DuckDB's BIGINT carry exactly (2**63 and more made orjson fail)
SCORE_MAX = 99_999


@dataclass(frozen=True, slots=True)
class Param:
    """How one parameter is written, checked and explained."""

    name: str
    kind: str  # "int", "bool", "choice", "table"
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    minimum: int = 0
    #: every whole number has an upper bound too: a rule set of ten million decks made
    #: one request take 4 GB before any check could refuse it (issue 27)
    maximum: int = SCORE_MAX
    nullable: bool = False

    def accepts(self) -> str:
        if self.kind == "bool":
            text = "true or false"
        elif self.kind == "choice":
            text = "one of " + ", ".join(self.choices)
        elif self.kind == "table":
            text = (
                f"a table {{score: reduced score}} of whole numbers, scores from 1 to "
                f"{self.maximum}, e.g. {{100:50,200:100}}"
            )
        else:
            text = f"a whole number from {self.minimum} to {self.maximum}"
        return text + (" or null" if self.nullable else "")


#: a set holds at most one rank's cards of four decks with all their jokers (4 x 4 + 4 x 8);
#: a run never repeats a rank, so it holds at most the 13 ranks (or 14 with ace_high)
SET_MAX, RUN_MAX = 48, 14

#: the one table of every parameter: its name, type, default and range (``minimum`` to
#: ``maximum``), read by the id parser, the rules files, the report's schema, the JSON
#: Schema, the rules page and ``rules show``; docs/rules.md states the same ranges
PARAMS: tuple[Param, ...] = (
    Param("decks", "int", 1, "standard 52-card decks shuffled together", minimum=1, maximum=4),
    Param("jokers", "int", 2, "jokers per deck", maximum=8),
    Param("hand_size", "int", 5, "cards dealt to each player", minimum=1, maximum=30),
    Param(
        "face_values",
        "choice",
        "flat",
        "flat: J Q K = 10; ranked: J 11, Q 12, K 13",
        choices=("flat", "ranked"),
    ),
    Param("joker_value", "int", 0, "points of a joker in hand"),
    Param("wild_jacks", "bool", False, "jacks act as jokers (Nepal)"),
    Param("set_min", "int", 2, "fewest cards in a set", minimum=2, maximum=SET_MAX),
    Param("set_max", "int", 4, "most cards in a set", minimum=2, maximum=SET_MAX),
    Param("run_min", "int", 3, "fewest cards in a run", minimum=2, maximum=RUN_MAX),
    Param(
        "run_max",
        "int",
        None,
        "most cards in a run (null: no bound)",
        minimum=2,
        maximum=RUN_MAX,
        nullable=True,
    ),
    Param("ace_high", "bool", False, "Q-K-A is a run too"),
    Param("run_wrap", "bool", False, "runs go round the corner (K-A-2)"),
    Param("jokers_in_runs", "bool", True, "a joker may stand in a run"),
    Param("jokers_in_sets", "bool", False, "a joker may stand in a set"),
    Param(
        "pickup",
        "choice",
        "ends",
        "which card of the previous throw may be taken",
        choices=("ends", "any", "ends_of_runs"),
    ),
    Param("pile_needs_combo", "bool", False, "draw from the pile only after throwing 2+ cards"),
    Param("slap_down", "bool", False, "a matching stock draw may be thrown at once"),
    Param("joker_swap", "bool", False, "take a joker from a run by putting in its card"),
    Param(
        "reshuffle",
        "choice",
        "keep_last_throw",
        "what happens when the stock runs out",
        choices=("keep_last_throw", "round_ends"),
    ),
    Param("yaniv_max", "int", 7, "highest hand total at which Yaniv may be called"),
    Param("assaf_on_tie", "bool", True, "an equal total counts as Assaf"),
    Param("assaf_penalty", "int", 30, "points added to the caller on an Assaf"),
    Param(
        "assaf_multi_penalty",
        "int",
        None,
        "penalty per Assafing player when more than one Assafs (null: off)",
        nullable=True,
    ),
    Param("assaf_adds_hand", "bool", True, "the Assafed caller scores hand + penalty"),
    Param(
        "assaf_scoring",
        "choice",
        "lowest_wins",
        "how the others score on an Assaf",
        choices=("lowest_wins", "all_count", "others_zero"),
    ),
    Param("score_limit", "int", 200, "the score limit", minimum=1),
    Param(
        "limit_rule",
        "choice",
        "exceed",
        "exceed: out above the limit; reach: out at it",
        choices=("exceed", "reach"),
    ),
    Param(
        "game_end",
        "choice",
        "elimination",
        "when the game ends",
        choices=("elimination", "first_out", "rounds"),
    ),
    Param(
        "rounds",
        "int",
        None,
        "rounds played when game_end=rounds",
        minimum=1,
        maximum=1000,
        nullable=True,
    ),
    Param(
        "reductions",
        "table",
        ((100, 50), (200, 100)),
        "a score landing exactly on a key drops to its value",
    ),
    Param(
        "starter",
        "choice",
        "round_winner",
        "who opens rounds after the first",
        choices=("round_winner", "next_seat", "caller", "free"),
    ),
)
PARAM_BY_NAME: dict[str, Param] = {p.name: p for p in PARAMS}


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every parameter of docs/rules.md. Equality and hashing go by the parameters;
    ``name`` is the preset the user chose, kept for display in :attr:`id`."""

    decks: int = 1
    jokers: int = 2
    hand_size: int = 5
    face_values: str = "flat"
    joker_value: int = 0
    wild_jacks: bool = False
    set_min: int = 2
    set_max: int = 4
    run_min: int = 3
    run_max: int | None = None
    ace_high: bool = False
    run_wrap: bool = False
    jokers_in_runs: bool = True
    jokers_in_sets: bool = False
    pickup: str = "ends"
    pile_needs_combo: bool = False
    slap_down: bool = False
    joker_swap: bool = False
    reshuffle: str = "keep_last_throw"
    yaniv_max: int = 7
    assaf_on_tie: bool = True
    assaf_penalty: int = 30
    assaf_multi_penalty: int | None = None
    assaf_adds_hand: bool = True
    assaf_scoring: str = "lowest_wins"
    score_limit: int = 200
    limit_rule: str = "exceed"
    game_end: str = "elimination"
    rounds: int | None = None
    reductions: Reductions = ((100, 50), (200, 100))
    starter: str = "round_winner"
    name: str = field(default="israeli", compare=False)

    def values(self) -> dict[str, Any]:
        """Every parameter by name, in docs/rules.md order (tables as tuples)."""
        return {p.name: getattr(self, p.name) for p in PARAMS}

    def params(self) -> dict[str, Any]:
        """Every parameter as JSON would carry it (table keys as strings)."""
        out = self.values()
        out["reductions"] = {str(k): v for k, v in self.reductions}
        return out

    @property
    def id(self) -> str:
        base = PRESETS[self.name]
        changed = sorted(p.name for p in PARAMS if getattr(self, p.name) != getattr(base, p.name))
        if not changed:
            return self.name
        inner = ",".join(f"{n}={format_value(getattr(self, n))}" for n in changed)
        return f"{self.name}({inner})"

    @property
    def key(self) -> str:
        """The id written against the defaults (``israeli``): equal parameters, equal key.

        The archive keys rule sets by it, so ``classic`` and ``israeli(yaniv_max=5)``
        are one rule set there.
        """
        return dataclasses.replace(self, name="israeli").id

    def __str__(self) -> str:
        return self.id


def format_value(value: Any) -> str:
    """A parameter value as the canonical id writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return "{" + ",".join(f"{k}:{v}" for k, v in value) + "}"
    return str(value)


# --- presets -------------------------------------------------------------

_PRESET_OVERRIDES: dict[str, tuple[str, dict[str, Any]]] = {
    "israeli": ("the Hebrew guide, fast Israeli game", {}),
    "classic": ("the Hebrew guide, classic game", {"yaniv_max": 5}),
    "cardgames-zone": ("the Russian rules page of an online card-game site", {}),
    "namu": (
        "the Korean wiki article",
        {
            "jokers": 0,
            "yaniv_max": 5,
            "pickup": "any",
            "run_max": 5,
            "assaf_scoring": "all_count",
            "score_limit": 100,
            "limit_rule": "reach",
            "game_end": "first_out",
            "reductions": {},
        },
    ),
    "de-wiki": (
        "the German Wikipedia article",
        {
            "joker_swap": True,
            "assaf_multi_penalty": 20,
            "game_end": "first_out",
            "reductions": {},
        },
    ),
    "mcleod": (
        "John McLeod's description as the Hebrew guide cites it",
        {
            "yaniv_max": 5,
            "assaf_scoring": "all_count",
        },
    ),
    "jhyap": (
        "Nepal, as McLeod describes it",
        {
            "jokers": 0,
            "wild_jacks": True,
            "score_limit": 100,
        },
    ),
}

PRESET_SOURCES: dict[str, str] = {name: src for name, (src, _) in _PRESET_OVERRIDES.items()}
PRESETS: dict[str, RuleSet] = {}


def _check_value(param: Param, value: Any) -> Any:
    """The value in the rule set's own type, or a RulesError naming the parameter."""

    def refuse() -> RulesError:
        hint = did_you_mean(value, param.choices)
        return RulesError(f"{param.name}: expected {param.accepts()}, got {_show(value)}{hint}")

    if value is None:
        if param.nullable:
            return None
        raise refuse()
    if param.kind == "bool":
        if isinstance(value, bool):
            return value
        raise refuse()
    if param.kind == "int":
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or not param.minimum <= value <= param.maximum
        ):
            raise refuse()
        return value
    if param.kind == "choice":
        if isinstance(value, str) and value in param.choices:
            return value
        raise refuse()
    # table
    if isinstance(value, tuple):
        value = dict(value)
    if not isinstance(value, Mapping):
        raise refuse()
    table: dict[int, int] = {}
    for key, target in value.items():
        number = _table_key(key)
        if number is None or not 1 <= number <= param.maximum:
            raise RulesError(
                f"{param.name}: key {_show(key)} is not a score; expected {param.accepts()}"
            )
        if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < number:
            raise RulesError(
                f"{param.name}: {number} drops to {_show(target)}; expected a whole number "
                f"from 0 to {number - 1}"
            )
        if number in table:
            raise RulesError(f"{param.name}: score {number} is given twice")
        table[number] = target
    return tuple(sorted(table.items()))


def _table_key(key: Any) -> int | None:
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key
    if isinstance(key, str) and re.fullmatch(r"\s*\d{1,40}\s*", key):
        return int(key)
    return None


def _show(value: Any) -> str:
    """The value as an error message quotes it, cut to 40 characters (a value can be a
    number of a million digits, which the message must not repeat)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**40:
        return f"a number of {len(str(abs(value)))} digits"
    if isinstance(value, tuple):
        text = format_value(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _combination_problems(rules: RuleSet) -> list[str]:
    problems = []
    if rules.set_min > rules.set_max:
        problems.append(
            f"set_min={rules.set_min} is above set_max={rules.set_max}: "
            "set_min must be at most set_max"
        )
    if rules.run_max is not None and rules.run_max < rules.run_min:
        problems.append(
            f"run_max={rules.run_max} is below run_min={rules.run_min}: "
            "run_max must be null or at least run_min"
        )
    if rules.game_end == "rounds" and rules.rounds is None:
        problems.append(
            "game_end=rounds needs rounds: the rounds to play, a whole number "
            f"from 1 to {PARAM_BY_NAME['rounds'].maximum}"
        )
    return problems


def make_rules(base: Any, overrides: Mapping[str, Any] | None = None) -> RuleSet:
    """The preset ``base`` with ``overrides`` applied and checked: a RulesError lists
    every problem (an unknown preset, each unknown parameter or bad value), not the
    first, as a log's are; the combinations are checked once the values are good."""
    problems = []
    if not isinstance(base, str) or base not in PRESETS:
        problems.append(
            f"unknown preset {_show(base)}: expected one of "
            + ", ".join(PRESETS)
            + (did_you_mean(base, PRESETS) if isinstance(base, str) else "")
        )
    changes: dict[str, Any] = {}
    for key, value in (overrides or {}).items():
        param = PARAM_BY_NAME.get(key)
        if param is None:
            problems.append(
                f"unknown rule parameter {_show(key)}; see 'yaniv-audit rules "
                f"show'{did_you_mean(key, PARAM_BY_NAME)}"
            )
            continue
        try:
            changes[key] = _check_value(param, value)
        except RulesError as exc:
            problems.append(str(exc))
    if not problems:
        rules = dataclasses.replace(PRESETS[base], name=base, **changes)
        problems = _combination_problems(rules)
    if problems:
        raise RulesError.of(problems)
    return rules


def _build_presets() -> None:
    for name, (_, overrides) in _PRESET_OVERRIDES.items():
        PRESETS[name] = RuleSet(name=name)
        PRESETS[name] = make_rules(name, overrides)


_build_presets()


# --- the id syntax -------------------------------------------------------

_ID = re.compile(r"^([A-Za-z0-9_-]+)(?:\((.*)\))?$", re.DOTALL)


def _split_top(text: str, sep: str) -> list[str]:
    """Split at ``sep`` outside braces and quotes."""
    parts: list[str] = []
    depth = 0
    quoted = False
    start = 0
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "{":
            depth += 1
        elif not quoted and ch == "}":
            depth -= 1
        elif not quoted and depth == 0 and ch == sep:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _parse_scalar(text: str) -> Any:
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    if re.fullmatch(r"-?\d+", text):
        # past 40 digits it is out of every range: kept as text (refused as not a whole
        # number in range), never given to int(), which refuses 4,300 digits and more
        return int(text) if len(text) <= 40 else text
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    if re.fullmatch(r"-?\d+\.\d*(e-?\d+)?", text):
        return float(text)
    return text


def _parse_value(name: str, text: str) -> Any:
    if text.startswith("{"):
        if not text.endswith("}"):
            raise RulesError(f"{name}: unclosed table {text!r}; expected e.g. {{100:50,200:100}}")
        body = text[1:-1]
        table: dict[Any, Any] = {}
        for item in filter(None, _split_top(body, ",")):
            key, colon, value = item.partition(":")
            if not colon:
                raise RulesError(
                    f"{name}: table entry {item!r} needs 'score:reduced', e.g. {{100:50}}"
                )
            table[_parse_scalar(key)] = _parse_scalar(value)
        return table
    return _parse_scalar(text)


def parse_rules(text: str) -> RuleSet:
    """A rule set from its id, e.g. ``classic`` or ``israeli(yaniv_max=5)``."""
    if isinstance(text, str):
        return _parse_id(text)  # each log names its rules: the same few ids, parsed once
    return _parse_id_uncached(text)


@functools.lru_cache(maxsize=256)
def _parse_id(text: str) -> RuleSet:
    return _parse_id_uncached(text)  # a RuleSet is frozen; a RulesError is not cached


def _parse_id_uncached(text: str) -> RuleSet:
    compact = "".join(text.split()) if isinstance(text, str) else ""
    match = _ID.match(compact)
    if not match:
        raise RulesError(
            f"{text!r} is not a rule-set id: expected a preset name, optionally followed by "
            "(parameter=value,...), e.g. israeli(yaniv_max=5)"
        )
    base, inner = match.group(1), match.group(2)
    overrides: dict[str, Any] = {}
    for item in _split_top(inner or "", ","):
        if not item:
            continue
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise RulesError(f"{item!r} in {text!r}: expected parameter=value")
        if key in overrides:
            raise RulesError(f"{key} is given twice in {text!r}")
        overrides[key] = _parse_value(key, value)
    return make_rules(base, overrides)


def rules_from_mapping(data: Mapping[str, Any]) -> RuleSet:
    """A rule set from ``{"base": "israeli", "yaniv_max": 5, ...}`` (a file or a log)."""
    if not isinstance(data, Mapping):
        raise RulesError("a rules object must be a table with a 'base' preset and overrides")
    overrides = {k: v for k, v in data.items() if k != "base"}
    base = data.get("base")
    if isinstance(base, str):
        return make_rules(base, overrides)
    problems = [
        "a rules object needs 'base': one of " + ", ".join(PRESETS)
        if "base" not in data
        else "base: expected one of " + ", ".join(PRESETS) + f", got {_show(base)}"
    ]
    try:
        make_rules("israeli", overrides)  # its other problems, listed with this one
    except RulesError as exc:
        problems += exc.problems
    raise RulesError.of(problems)


def names_a_preset(spec: str) -> bool:
    """Whether ``spec`` is a preset's name, alone or with parameters (``classic``,
    ``israeli(yaniv_max=5)``)."""
    match = _ID.match("".join(spec.split()))
    return match is not None and match.group(1) in PRESETS
