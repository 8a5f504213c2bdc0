"""Rules files and the house rules found by default (yaniv_audit/io/rules_files.py): TOML and
JSON files, every problem listed under the file's name, a preset's name never hidden by a
file of that name. The command line's side (notes, exit statuses, $YANIV_AUDIT_RULES,
yaniv-rules.toml) is in tests/cli/."""

from __future__ import annotations

from pathlib import Path

import pytest

from yaniv_audit.core.errors import RulesError
from yaniv_audit.core.rules import PRESETS, parse_rules
from yaniv_audit.io.rules_files import (
    HOUSE_FILE,
    house_file,
    house_rules_spec,
    load_rules_file,
    resolve_rules,
)


def test_rules_files_refuse_out_of_range_values(tmp_path: Path) -> None:
    toml = tmp_path / "house.toml"
    toml.write_text('base = "israeli"\ndecks = 20000000\n')
    with pytest.raises(
        RulesError, match=r"house\.toml: decks: expected a whole number from 1 to 4"
    ):
        load_rules_file(toml)
    js = tmp_path / "house.json"
    js.write_text('{"base": "israeli", "score_limit": 18446744073709551616}')
    with pytest.raises(RulesError, match=r"house\.json: score_limit: expected a whole number"):
        load_rules_file(js)


def test_rules_files_toml_and_json_match_the_equivalent_id(tmp_path: Path) -> None:
    toml = tmp_path / "house.toml"
    toml.write_text('base = "israeli"\nyaniv_max = 5\n[reductions]\n"100" = 50\n"150" = 100\n')
    js = tmp_path / "house.json"
    js.write_text('{"base": "israeli", "yaniv_max": 5, "reductions": {"100": 50, "150": 100}}')
    expected = parse_rules("israeli(yaniv_max=5,reductions={100:50,150:100})")
    for path in (toml, js):
        r = load_rules_file(path)
        assert r == expected and r.id == expected.id
        assert resolve_rules(str(path)) == expected


def test_rules_file_errors_name_the_file_and_the_parameter(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('base = "israeli"\nyaniv_maxx = 5\n')
    with pytest.raises(RulesError, match=r"bad.toml: unknown rule parameter \"yaniv_maxx\""):
        load_rules_file(bad)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(RulesError, match=r"broken\.json: read as a rules file, and not valid JSON"):
        load_rules_file(broken)
    with pytest.raises(RulesError, match="cannot read"):
        load_rules_file(tmp_path / "missing.toml")


def test_a_rules_file_lists_every_problem_not_the_first(tmp_path: Path) -> None:
    """As a log gets every problem listed, so does a rules file: each bad value and
    unknown parameter, on its own line under the file's name."""
    bad = tmp_path / "house.toml"
    bad.write_text('base = "israeli"\nyaniv_max = "seven"\nasaf_penalty = 20\nscore_limit = -5\n')
    with pytest.raises(RulesError) as caught:
        load_rules_file(bad)
    assert str(caught.value) == (
        f"{bad}: 3 problems:\n"
        '  yaniv_max: expected a whole number from 0 to 99999, got "seven"\n'
        "  unknown rule parameter \"asaf_penalty\"; see 'yaniv-audit rules show'; did you "
        'mean "assaf_penalty"?\n'
        "  score_limit: expected a whole number from 1 to 99999, got -5"
    )
    assert caught.value.problems[0] == (
        f'{bad}: yaniv_max: expected a whole number from 0 to 99999, got "seven"'
    )
    no_base = tmp_path / "no-base.json"
    no_base.write_text('{"yaniv_max": "x"}')
    with pytest.raises(
        RulesError,
        match=r"2 problems:\n  a rules object needs 'base'.*\n"
        r"  yaniv_max: expected",
    ):
        load_rules_file(no_base)
    with pytest.raises(RulesError, match=r"^2 problems:\n  unknown preset \"isr\""):
        parse_rules("isr(yaniv_max=x)")


def test_a_preset_name_is_the_preset_even_with_a_file_of_that_name_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file named classic in the current directory does not hide the preset; ./classic
    reads the file, and its error says it was read as a rules file."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "classic").write_text("not toml at all\n")
    assert resolve_rules("classic") == PRESETS["classic"]
    assert resolve_rules("classic(yaniv_max=5)").yaniv_max == 5
    with pytest.raises(
        RulesError,
        match=r"^\./classic: read as a rules file, and not valid "
        "TOML",
    ):
        resolve_rules("./classic")
    (tmp_path / "house").write_text('base = "namu"\n')
    assert resolve_rules("house") == PRESETS["namu"]  # not a preset's name: the file
    with pytest.raises(RulesError, match="nor is there a rules file hous here"):
        resolve_rules("hous")


def test_the_house_rules_come_from_the_variable_else_the_file_here(tmp_path: Path) -> None:
    """$YANIV_AUDIT_RULES first (empty: none), else yaniv-rules.toml in the directory."""
    assert house_rules_spec({}, tmp_path, home=tmp_path) is None
    (tmp_path / HOUSE_FILE).write_text('base = "namu"\n')
    found = str(tmp_path.resolve() / HOUSE_FILE)
    assert house_rules_spec({}, tmp_path) == (found, found)
    assert house_rules_spec({"YANIV_AUDIT_RULES": "classic"}, tmp_path) == (
        "classic",
        "$YANIV_AUDIT_RULES",
    )
    assert house_rules_spec({"YANIV_AUDIT_RULES": " "}, tmp_path) is None  # turned off


def test_the_house_file_is_looked_for_up_to_the_project_s_root(tmp_path: Path) -> None:
    """Issue 38: as ruff and pytest do, from the current directory upward; the search
    stops after a directory holding .git, the home directory, or the root."""
    club = tmp_path / "club"
    deep = club / "games" / "2026" / "friday"
    deep.mkdir(parents=True)
    (club / HOUSE_FILE).write_text('base = "namu"\n')
    assert house_file(deep, home=tmp_path) == club.resolve() / HOUSE_FILE
    assert house_rules_spec({}, deep, home=tmp_path) == (str(club.resolve() / HOUSE_FILE),) * 2
    (deep / HOUSE_FILE).write_text('base = "classic"\n')
    assert house_file(deep, home=tmp_path) == deep.resolve() / HOUSE_FILE  # the nearest
    (deep / HOUSE_FILE).unlink()
    (club / "games" / ".git").mkdir()  # a project inside the club's folder: its root
    assert house_file(deep, home=tmp_path) is None
    assert house_file(club / "games", home=tmp_path) is None
    (club / "games" / ".git").rmdir()
    assert house_file(deep, home=club / "games") is None  # the home directory: no further
    assert house_file(deep, home=club) == club.resolve() / HOUSE_FILE  # home is looked in
