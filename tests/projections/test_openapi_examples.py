"""Issue 11: every operation of the served OpenAPI document (both APIs, as the gateway serves
them) has examples — its request body, each 2xx answer and each problem answer, one problem
example per code it can answer — and every example validates against its own schema.

The document is built from the app without serving it (no Redis or store is reached)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import redis.asyncio as aioredis

from shared.app.http.problem_codes import CODES
from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.documented import PROBLEM, answers_table, documented_codes
from tests.projections.support import Gateway

NO_REDIS = "redis://127.0.0.1:9/0"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    gw = Gateway(InMemoryEventStore(clock=StepClock()), aioredis.Redis.from_url(NO_REDIS), "doc")
    return gw.app.openapi_schema.to_schema()  # type: ignore[no-any-return]


def _media(doc: dict[str, Any]) -> list[tuple[str, str, str, str, dict[str, Any]]]:
    """(method, path, where, media type, media object) of every body the document describes."""
    out = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for media_type, media in op.get("requestBody", {}).get("content", {}).items():
                out.append((method, path, "request", media_type, media))
            for status, response in op["responses"].items():
                for media_type, media in response.get("content", {}).items():
                    out.append((method, path, status, media_type, media))
    return out


def test_every_request_answer_and_problem_of_every_operation_has_an_example(
    doc: dict[str, Any],
) -> None:
    missing = [(m, p, where) for m, p, where, _t, media in _media(doc) if not media.get("examples")]
    assert missing == []


def test_every_example_validates_against_its_own_schema(doc: dict[str, Any]) -> None:
    wrong = []
    for method, path, where, media_type, media in _media(doc):
        schema = {**media["schema"], "components": doc["components"]}
        if media_type == "text/event-stream":
            schema = {"type": "string"}  # an event stream: the example is its text
        validator = jsonschema_rs.Draft202012Validator(schema, validate_formats=False)
        for name, example in media.get("examples", {}).items():
            errors = [str(e) for e in validator.iter_errors(example["value"])]
            if errors:
                wrong.append((method, path, where, name, errors))
    assert wrong == []


def test_the_event_streams_example_is_what_the_stream_sends(doc: dict[str, Any]) -> None:
    """Issue 11: every message of the stream has an `event:`, an `id:` (what a client resumes
    from) and one JSON `data:` line whose event name `x-events` describes; so does the
    example a frontend developer reads."""
    op = doc["paths"]["/v1/seasons/{season_id}/events"]["get"]
    media = op["responses"]["200"]["content"]["text/event-stream"]
    for example in media["examples"].values():
        messages = [m for m in example["value"].split("\n\n") if m]
        assert messages, example
        for message in messages:
            fields = dict(line.split(": ", 1) for line in message.splitlines())
            assert fields.keys() == {"event", "id", "data"}, message
            assert fields["event"] in op["x-events"], message
            assert re.fullmatch(r"\d+(-\d+)?", fields["id"]), message
            json.loads(fields["data"])


def test_each_problem_example_is_of_its_code_and_status(doc: dict[str, Any]) -> None:
    """A problem example is keyed by its code and sent under the code's status (CODES)."""
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                examples = response.get("content", {}).get(PROBLEM, {}).get("examples", {})
                for code, example in examples.items():
                    assert example["value"]["code"] == code, (method, path, code)
                    assert int(status) == example["value"]["status"] == CODES[code][0]
            assert documented_codes(doc, method, path) or (method, path) == ("get", "/v1/board")


def test_docs_api_md_lists_the_answers_of_every_operation_as_the_document_does(
    doc: dict[str, Any],
) -> None:
    """docs/api.md "Answers per operation" is the served document's table, verbatim
    (regenerate it with tests.documented.answers_table after changing an operation)."""
    text = (ROOT / "docs/api.md").read_text()
    assert answers_table(doc) in text, answers_table(doc)


def test_every_code_the_api_has_is_in_docs_api_md() -> None:
    text = (ROOT / "docs/api.md").read_text()
    assert [c for c in CODES if f"`{c}`" not in text] == []


def test_every_code_an_operation_documents_is_driven_by_a_test(doc: dict[str, Any]) -> None:
    """Issue 11: an operation lists only what it can answer: each code any operation of either
    API documents is asserted by some test of the suite (and every problem a test's client
    receives is, in turn, checked against its operation's list: tests/documented.py)."""
    tests = [
        p.read_text()
        for p in (ROOT / "tests").rglob("test_*.py")
        if p.name != "test_openapi_examples.py"
    ]
    codes = {
        c for p, item in doc["paths"].items() for m in item for c in documented_codes(doc, m, p)
    }
    assert sorted(c for c in codes if not any(f'"{c}' in t for t in tests)) == []
