"""``rules list`` and ``rules show``: the presets and their parameters."""

from __future__ import annotations

import click

from ..core.rules import PARAMS, PRESET_SOURCES, PRESETS, format_value
from .options import complete_rules, house_rules, resolve_or_usage
from .render import echo, emit_json


@click.group()
def rules() -> None:
    """The rule presets and their parameters."""


@rules.command("list")
@click.option("--json", "as_json", is_flag=True, help="the presets as one JSON array")
def rules_list(as_json: bool) -> None:
    """Every preset, what it changes and where it comes from."""
    # presets equal by their parameters: the same rules, written down by two sources
    same = {
        name: [other for other, o in PRESETS.items() if o == r and other != name]
        for name, r in PRESETS.items()
    }
    if as_json:
        emit_json(
            [
                {
                    "id": name,
                    "source": PRESET_SOURCES[name],
                    "params": r.params(),
                    "same_as": same[name],
                }
                for name, r in PRESETS.items()
            ]
        )
        return
    default = PRESETS["israeli"]
    for name, r in PRESETS.items():
        changed = [
            f"{k}={format_value(v)}" for k, v in r.values().items() if getattr(default, k) != v
        ]
        what = ", ".join(changed) if changed else "(the defaults)"
        if same[name]:
            what += (
                f"; the same rules as {' and '.join(same[name])}, from "
                f"{'another source' if len(same[name]) == 1 else 'other sources'}"
            )
        echo(f"{name:15} {PRESET_SOURCES[name]}")
        echo(f"{'':15} {what}")


@rules.command("show")
@click.argument("rule_set", metavar="[R]", required=False, shell_complete=complete_rules)
@click.option("--json", "as_json", is_flag=True, help="the rule set as one JSON object")
def rules_show(rule_set: str | None, as_json: bool) -> None:
    """Every parameter of rule set R (a preset, an id or a rules file).

    Without R: the house rules found by default ($YANIV_AUDIT_RULES, else the
    nearest yaniv-rules.toml, here or above up to the project's root), else israeli.
    """
    found = None if rule_set else house_rules(say=False)
    r = found[0] if found else resolve_or_usage(rule_set or "israeli", "R")
    if as_json:
        emit_json(
            {
                "id": r.id,
                "source": PRESET_SOURCES[r.name],
                "params": r.params(),
                **({"house_rules": found[1]} if found else {}),
            }
        )
        return
    echo(f"{r.id}")
    if found:
        echo(f"house rules: {found[1]} (used when --rules is not given)")
    echo(f"preset {r.name}: {PRESET_SOURCES[r.name]}")
    for p in PARAMS:
        echo(f"  {p.name:20} {format_value(getattr(r, p.name)):24} {p.help}")


#: the commands this module adds to `yaniv-audit`
COMMANDS: list[click.Command] = [rules]


def _add_fit() -> None:
    from .fit import rules_fit  # rules fit (cli/fit.py)

    rules.add_command(rules_fit)


_add_fit()
