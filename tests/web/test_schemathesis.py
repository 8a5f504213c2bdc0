"""The API against its own OpenAPI document: schemathesis generates requests for every
operation of the document the live server serves (waitress on 127.0.0.1, an archive of
its own), valid and invalid ones, with the write token and without, and checks each
answer: no 5xx, a status, content type, body and headers the document declares,
invalid input refused, valid input taken (issue 27).

Bounded: 5 generated examples an operation, the same ones each run, beside the cases
schemathesis derives from the document (its coverage phase: each boundary, each missing
or mistyped part), so that the file takes well under a minute. The long sweep,
YANIV_AUDIT_LONG=1, generates 200 an operation, new ones each run;
YANIV_AUDIT_SCHEMATHESIS_EXAMPLES=N sets the count (docs/development.md)."""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis  # in the test extra: a missing one fails, it is not skipped
from hypothesis import HealthCheck, settings
from schemathesis import checks
from test_serve import FRIDAY, MIDDLE, free_port, send, start_serve

pytestmark = pytest.mark.xdist_group("schemathesis")

TOKEN = "schemathesis-write-token"
#: generated examples an operation, in each of the two runs; the bounded run's are the
#: same each time (derandomized), a sweep's new each time
SWEEP = os.environ.get("YANIV_AUDIT_SCHEMATHESIS_EXAMPLES") or (
    "200" if os.environ.get("YANIV_AUDIT_LONG") else ""
)
EXAMPLES = int(SWEEP or 5)

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.response_headers_conformance,
    checks.negative_data_rejection,
]

#: what a request the document calls valid may still be refused for: a value the document
#: can only call a string, whose meaning the server judges (a rule-set id naming no
#: preset or a parameter out of its range, a seat nobody sits in, a log whose events do
#: not read): a 400 or 422 naming that field, and nothing else
JUDGED = {400: {"rules", "rule_id", "seat", "from"}, 422: {"log"}}
#: what else the server judges: a live table's events (an event that does not read: a 400
#: naming its line and field), an append at a count that is not the table's (412)
JUDGED_CODES = {"unreadable_event", "stale"}
#: the answers a valid request may get besides 2xx (schemathesis's positive_data_acceptance
#: takes these): a write without the token, nothing there, an ambiguous reference
TAKEN = {401, 403, 404, 409}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``yaniv-audit serve`` on waitress with a write token, holding two sample games
    (stored through the API: quicker than ``--demo``'s eight)."""
    db = tmp_path_factory.mktemp("schemathesis") / "live.duckdb"
    port = free_port()
    # no limit on the tables one address opens a minute (its 429 has a test of its own,
    # tests/web/test_tables.py): every generated open reaches the server's checks
    env = {**os.environ, "YANIV_AUDIT_TOKEN": TOKEN, "YANIV_AUDIT_TABLES_OPEN_RATE": "0"}
    proc, said = start_serve(db, port, env, "--threads", "4", "--workers", "0")
    assert "writes need the token" in said
    started = time.monotonic()
    try:
        url = f"http://127.0.0.1:{port}"
        for log in (MIDDLE, FRIDAY):
            status, _, _ = send(
                f"{url}/api/v1/games", log.read_bytes(), {"Authorization": f"Bearer {TOKEN}"}
            )
            assert status == 201
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    # the figures, for -s (docs/development.md quotes them)
    print(
        f"\nschemathesis: {sum(SENT.values())} requests over "
        f"{len({label for label, _ in SENT})} operations with and without the token "
        f"({min(SENT.values(), default=0)} to {max(SENT.values(), default=0)} an operation "
        f"and run), {EXAMPLES} generated examples an operation, "
        f"{time.monotonic() - started:.1f} s; answers: "
        + ", ".join(f"{n} {status}" for status, n in sorted(ANSWERED.items()))
    )


@pytest.fixture
def api(live: str) -> Any:
    return schemathesis.openapi.from_url(f"{live}/api/v1/openapi.json")


# JSON Lines goes on the wire as the text it is (schemathesis has no serializer for it,
# and left the media type out: the document's example log was never sent as JSON Lines)
schemathesis.serializer.alias("application/x-ndjson", "text/plain")
schema = schemathesis.pytest.from_fixture("api")
bounded = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=not SWEEP,
    suppress_health_check=list(HealthCheck),
)
#: the requests sent, by operation and run, and the answers, by status
SENT: Counter[tuple[str, bool]] = Counter()
ANSWERED: Counter[int] = Counter()


@schema.parametrize()
@bounded
def test_the_api_keeps_its_contract_with_the_token(case: Any) -> None:
    SENT[case.operation.label, True] += 1
    valid_input_taken(
        case, case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"}, checks=CHECKS)
    )


@schema.parametrize()
@bounded
def test_the_api_keeps_its_contract_without_the_token(case: Any) -> None:
    SENT[case.operation.label, False] += 1
    valid_input_taken(case, case.call_and_validate(checks=CHECKS))


def valid_input_taken(case: Any, response: Any) -> None:
    """schemathesis's positive_data_acceptance, knowing what the document cannot say: a
    request it calls valid is answered 2xx, or 401, 403, 404, 409, or refused for a
    value whose meaning the server judges (:data:`JUDGED`), naming it."""
    status = response.status_code
    ANSWERED[status] += 1
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    if 200 <= status < 300 or status in TAKEN:
        return
    error = (response.json() or {}).get("error", {})
    if error.get("code") in JUDGED_CODES:
        return
    field = error.get("field")
    assert field in JUDGED.get(status, ()), (
        f"a valid request refused: {status} {response.text[:400]}\n{case.as_curl_command()}"
    )
