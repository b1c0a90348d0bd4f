"""ADR-61: a request body is JSON by its Content-Type, and names each key of an object once.

Issue 20 item 9 (ADR-75): a body without a Content-Type, in a charset other than UTF-8 or
with parameters that cannot be read is 415 too, saying what to send.

A body sent as `text/plain` or as a form (`curl -d` without `-H 'Content-Type: …'`) was
decoded as JSON all the same; `{"memleket": 6, "memleket": 7}` was taken, the last key
winning. Every operation that takes a JSON body now answers the first 415
`unsupported_media_type`, the second 400 `malformed_json` naming the key, and changes nothing.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.http.support import (
    ANKARA,
    OPS_TOKEN,
    Api,
    assert_problem,
    bearer,
    create_trial,
    unchanged,
)

NOT_JSON = [
    "text/plain",
    "text/plain; charset=utf-8",
    "application/x-www-form-urlencoded",  # what curl -d sends
    "multipart/form-data; boundary=x",
    "application/jsonp",
    "application/json-seq",
    "text/json",
]
JSON_TYPES = [
    "application/json",
    "application/json; charset=utf-8",
    "Application/JSON;charset=UTF-8",
    "application/merge-patch+json",
]
JSON = "application/json"
PATH_VALUES = {"to": "2", "frm": "2", "seat": "2", "divan": "1", "message_id": "1"}


def json_body_routes(api: Api, season_id: str) -> list[tuple[str, str]]:
    """(method, path) of every operation of the app that decodes a JSON body (`data`), its path
    parameters filled in: found from the app itself, so a new one is covered too."""
    found = []
    for route in api.app.routes:
        for handler in getattr(route, "route_handlers", []):
            if "data" not in handler.parsed_fn_signature.parameters:
                continue
            path = re.sub(r"\{season_id:str\}", season_id, route.path)
            path = re.sub(r"\{(\w+):int\}", lambda m: PATH_VALUES[m.group(1)], path)
            for method in handler.http_methods:
                found.append((method, path))
    return sorted(found)


async def test_every_json_body_operation_is_found(memory_api: Api) -> None:
    routes = json_body_routes(memory_api, "s")
    assert len(routes) >= 15 and ("POST", "/v1/seasons") in routes
    assert ("POST", "/v1/seasons/s/orders") in routes
    assert ("POST", "/v1/seasons/s/admin/pause") in routes


@pytest.mark.parametrize("content_type", NOT_JSON)
async def test_a_body_that_is_not_json_by_its_content_type_is_415_everywhere(
    memory_api: Api, content_type: str
) -> None:
    """Ops' token gets every operation as far as its body (a bey's token is checked on the fold,
    after the body; ops' guards before it)."""
    bey = await create_trial(memory_api.client)
    headers = {**bearer(OPS_TOKEN), "Content-Type": content_type, "Idempotency-Key": "k"}
    for method, path in json_body_routes(memory_api, bey.season_id):
        r = await unchanged(
            memory_api.store,
            memory_api.client.request(method, path, content=b'{"memleket": 6}', headers=headers),
        )
        problem = assert_problem(r, 415, "unsupported_media_type")
        assert content_type.split(";", maxsplit=1)[0] in problem["detail"], (path, problem)


async def test_the_refusal_says_which_type_it_is_in_either_language(memory_api: Api) -> None:
    for lang, said in (("tr", "JSON olmalı"), ("en", "must be JSON")):
        r = await memory_api.client.post(
            "/v1/seasons",
            content=b'{"memleket": 6}',
            headers={"Content-Type": "text/plain", "Accept-Language": lang},
        )
        problem = assert_problem(r, 415, "unsupported_media_type")
        assert said in problem["detail"] and "text/plain" in problem["detail"]


@pytest.mark.parametrize("content_type", JSON_TYPES)
async def test_json_by_its_type_is_taken(memory_api: Api, content_type: str) -> None:
    r = await memory_api.client.post(
        "/v1/seasons",
        content=b'{"memleket": 6, "seed": "7"}',
        headers={"Content-Type": content_type},
    )
    assert r.status_code == 201, r.text


# Issue 20 item 9, ADR-75: a body without a Content-Type, in another charset, or whose
# parameters cannot be read or are not JSON's, was read as JSON all the same.
REFUSED_PARAMETERS = [
    (None, "missing", ("Content-Type: application/json",)),
    ("", "missing", ("Content-Type: application/json",)),
    ("application/json; charset=latin-1", "charset", ("charset=latin-1", "charset=utf-8")),
    ("application/json; charset=ISO-8859-9", "charset", ("charset=ISO-8859-9",)),
    ("application/json; charset=utf-16", "charset", ("charset=utf-16",)),
    ("application/json; charset=utf-8; charset=latin-1", "charset", ("utf-8, latin-1",)),
    ("application/json; charset", "parameters", ("charset", "application/json")),
    ("application/json; =utf-8", "parameters", ("=utf-8",)),
    ('application/json; charset="utf-8', "parameters", ('charset="utf-8',)),
    ("application/json; boundary=x", "parameters", ("boundary=x",)),
    ("application/json; charset=utf-8 x", "parameters", ("charset=utf-8 x",)),
]


@pytest.mark.parametrize(("content_type", "variant", "named"), REFUSED_PARAMETERS)
async def test_a_body_without_a_json_content_type_or_with_other_parameters_is_415_everywhere(
    memory_api: Api, content_type: str | None, variant: str, named: tuple[str, ...]
) -> None:
    """Issue 20 item 9: 415 `unsupported_media_type`, the detail saying what to send, in either
    language, on every operation with a JSON body; nothing changes."""
    bey = await create_trial(memory_api.client)
    headers = {**bearer(OPS_TOKEN), "Idempotency-Key": "k"}
    if content_type is not None:
        headers["Content-Type"] = content_type
    for method, path in json_body_routes(memory_api, bey.season_id):
        for lang, send in (("tr", "gönderin"), ("en", "send")):
            r = await unchanged(
                memory_api.store,
                memory_api.client.request(
                    method,
                    path,
                    content=b'{"memleket": 6}',
                    headers={**headers, "Accept-Language": lang},
                ),
            )
            problem = assert_problem(r, 415, "unsupported_media_type")
            assert send in problem["detail"], (path, problem)
            assert all(n in problem["detail"] for n in named), (path, problem)
    assert variant  # the catalogue key's variant: unsupported_media_type.<variant>


ACCEPTED_PARAMETERS = [
    "application/json;",  # an empty parameter: allowed by RFC 9110's grammar
    'application/json; charset="utf-8"',
    "application/json ; charset=UTF-8 ;",
]


@pytest.mark.parametrize("content_type", ACCEPTED_PARAMETERS)
async def test_json_with_a_utf8_charset_written_any_valid_way_is_taken(
    memory_api: Api, content_type: str
) -> None:
    r = await memory_api.client.post(
        "/v1/seasons",
        content=b'{"memleket": 6, "seed": "7"}',
        headers={"Content-Type": content_type},
    )
    assert r.status_code == 201, r.text


async def test_an_empty_body_is_no_body_whatever_its_type(memory_api: Api) -> None:
    """Nothing to read as JSON or not: an empty body is refused as empty, not for its type."""
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    r = await memory_api.client.post("/v1/seasons", headers=headers)
    assert assert_problem(r, 400, "malformed_json")["detail"] == "İstek gövdesi boş"


DUPLICATES: list[tuple[bytes, str]] = [
    (b'{"memleket": 6, "memleket": 7}', "memleket"),
    (b'{"memleket": 6, "\\u006demleket": 7}', "memleket"),  # the same key, escaped
    (b'{"memleket": 6, "seed": "1", "seed": "1"}', "seed"),  # even with the same value
]


@pytest.mark.parametrize(("body", "key"), DUPLICATES)
async def test_a_key_twice_in_an_object_is_malformed_json_naming_it(
    memory_api: Api, body: bytes, key: str
) -> None:
    r = await unchanged(
        memory_api.store,
        memory_api.client.post(
            "/v1/seasons", content=body, headers={"Content-Type": "application/json"}
        ),
    )
    problem = assert_problem(r, 400, "malformed_json")
    assert f'"{key}"' in problem["detail"], problem


async def test_a_key_twice_deep_in_a_command_is_refused_in_either_language(memory_api: Api) -> None:
    bey = await create_trial(memory_api.client)
    body = b'{"orders": [{"province": %d, "kind": "hold", "kind": "advance", "target": 71}]}'
    for lang, said in (("tr", 'bir json nesnesinde "kind"'), ("en", 'the key "kind" appears')):
        r = await unchanged(
            memory_api.store,
            memory_api.client.post(
                bey.url("/orders"),
                content=body % ANKARA,
                headers={**bey.auth(), "Accept-Language": lang, "Content-Type": JSON},
            ),
        )
        problem = assert_problem(r, 400, "malformed_json")
        assert said in problem["detail"].lower(), problem


async def test_the_same_key_in_sibling_objects_is_no_duplicate(memory_api: Api) -> None:
    bey = await create_trial(memory_api.client)
    orders: dict[str, Any] = {
        "orders": [{"province": ANKARA, "kind": "hold"}, {"province": 71, "kind": "hold"}]
    }
    r = await memory_api.client.post(bey.url("/orders"), json=orders, headers=bey.auth())
    assert r.status_code != 400, r.text  # 403 not_your_province for 71: the rules, not the body
