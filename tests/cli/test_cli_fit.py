"""``yaniv-audit rules fit``: the text, the JSON and its schema, the exit statuses, and the
sample disputes' answers as docs/fit.md quotes them."""

from __future__ import annotations

import json
import re
import shlex

import pytest
from click.testing import CliRunner
from conftest import REPLAYS, ROOT
from jsonschema import Draft202012Validator

from yaniv_audit.cli import cli
from yaniv_audit.io.fit_schema import FIT
from yaniv_audit.schema_export import SCHEMAS_DIR

DOC = ROOT / "docs" / "fit.md"
#: each quoted command of docs/fit.md, its output and its exit status
QUOTED = re.findall(
    r"```\n\$ yaniv-audit (.*?)\n(.*?)```\n\nexit status (\d)", DOC.read_text(), re.DOTALL
)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["rules", "fit", *args])
    return result.exit_code, result.output


def test_a_call_above_the_declared_limit_is_said_with_the_event() -> None:
    code, out = run(str(REPLAYS / "yaniv-over-limit.jsonl"))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "fits classic(yaniv_max=6)"
    assert lines[1] == "changed from classic: yaniv_max"
    assert (
        "  yaniv_max=6 or more — under yaniv_max=5, event 22: gil called Yaniv at 6 "
        "(AS 2S 3S); yaniv_max=5"
    ) in lines
    assert any(line.startswith("the log cannot tell") and "assaf_on_tie" in line for line in lines)
    assert re.fullmatch(r"\d+ replays of the log", lines[-1])


def test_the_json_is_the_issues_shape_and_valid_for_its_schema() -> None:
    code, out = run(str(REPLAYS / "middle-card.jsonl"), "--json")
    assert code == 0
    answer = json.loads(out)
    schema = json.loads((SCHEMAS_DIR / "fit.schema.json").read_text())
    Draft202012Validator.check_schema(schema)
    assert list(Draft202012Validator(schema).iter_errors(answer)) == []
    assert FIT.validate(answer) == {}
    assert answer["from"] == "israeli"
    [alt] = answer["alternatives"]
    assert alt["rules"] == "israeli(pickup=any)" and alt["findings"] == 0
    assert alt["params"]["pickup"] == {"fixed": "any"}
    assert alt["params"]["yaniv_max"] == {"range": [4, 99999]}
    assert alt["events"]["pickup"] == [5]
    assert "slap_down" in answer["open"] and answer["replays"] > 0


def test_the_schema_refuses_a_parameter_written_two_ways() -> None:
    _, out = run(str(REPLAYS / "middle-card.jsonl"), "--json")
    answer = json.loads(out)
    answer["alternatives"][0]["params"]["pickup"] = {"fixed": "any", "values": ["any", "ends"]}
    schema = json.loads((SCHEMAS_DIR / "fit.schema.json").read_text())
    assert list(Draft202012Validator(schema).iter_errors(answer))


def test_nothing_fits_a_recorders_mistake_exit_1_with_what_is_left() -> None:
    code, out = run(str(REPLAYS / "wrong-score.jsonl"), "--json")
    assert code == 1
    alt = json.loads(out)["alternatives"][0]
    assert alt["findings"] == 2
    assert {f["code"] for f in alt["left"]} == {"claim.points", "claim.scores"}


def test_an_impossible_event_is_exit_3() -> None:
    code, out = run(str(REPLAYS / "impossible-draw.jsonl"))
    assert code == 3
    assert "left: event 6: max does not hold QS" in out


def test_from_another_rule_set_and_a_bad_one() -> None:
    code, out = run(str(REPLAYS / "middle-card.jsonl"), "--from", "namu")
    assert code == 0 and out.startswith("fits namu")
    code, out = run(str(REPLAYS / "middle-card.jsonl"), "--from", "nope")
    assert code == 2 and "--from" in out and "unknown preset" in out


def test_in_the_readers_language() -> None:
    code, out = run(str(REPLAYS / "yaniv-over-limit.jsonl"), "--lang", "de")
    assert code == 0
    assert out.startswith("passt zu classic(yaniv_max=6)")
    assert "Ereignis 22" in out
    # a range up to the parameter's own bound, as a person says it, in the language too
    assert "  yaniv_max=6 oder mehr — " in out
    assert "99999" not in out


def test_a_range_without_an_upper_bound_says_or_more_and_the_json_keeps_its_shape() -> None:
    _, out = run(str(REPLAYS / "middle-card.jsonl"))
    assert "  yaniv_max=4 or more — " in out and "99999" not in out
    _, out = run(str(REPLAYS / "middle-card.jsonl"), "--json")
    assert json.loads(out)["alternatives"][0]["params"]["yaniv_max"] == {"range": [4, 99999]}


def test_an_unreadable_log_is_one_line_exit_3(tmp_path: object) -> None:
    code, out = run(str(REPLAYS / "README.md"))
    assert code == 3 and "unreadable" in out and "Traceback" not in out


@pytest.mark.parametrize(("command", "output", "status"), QUOTED, ids=[q[0] for q in QUOTED])
def test_docs_fit_quotes_each_sample_dispute_as_the_command_answers(
    command: str, output: str, status: str
) -> None:
    args = shlex.split(command)
    assert args[:2] == ["rules", "fit"]
    args[2] = str(ROOT / args[2])
    result = CliRunner().invoke(cli, args)
    assert (result.exit_code, result.output) == (int(status), output)


def test_every_sample_dispute_is_in_docs_fit() -> None:
    quoted = {shlex.split(c)[2] for c, _, _ in QUOTED}
    assert quoted == {f"replays/{p.name}" for p in REPLAYS.glob("*.jsonl")}


def test_cli_md_quotes_the_fit_of_the_over_limit_call_as_fit_md_does() -> None:
    cli_md = (ROOT / "docs" / "cli.md").read_text().split("### rules fit", 1)[1]
    [(_, output, _)] = [q for q in QUOTED if "yaniv-over-limit" in q[0]]
    assert output in cli_md
