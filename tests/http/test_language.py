"""One language policy (issue 11; docs/api.md Language): Turkish by default, English on
`Accept-Language: en` or `?lang=en`, for every problem detail of both APIs and every report
line; every answer says its language (Content-Language) and that it varies with the header."""

from __future__ import annotations

from contextlib import AsyncExitStack

import pytest

from shared.app.http.problem_codes import CODES, UNLISTED_CODES
from shared.app.http.problems import stored_language
from shared.domain import messages as m
from shared.domain.refusals import REFUSALS
from tests.http.support import ISTANBUL, Api, assert_problem, create_trial
from tests.http.test_problems import CASES, _params

EN = {"Accept-Language": "en"}


def test_every_code_with_its_own_status_has_both_texts() -> None:
    """Issue 11: the codes the edge gives a status of their own are in the catalogue."""
    assert set(CODES) <= {m.code_of(k) for k in m.CATALOGUE}


def test_every_problem_text_of_the_catalogue_is_one_of_a_code_the_api_answers() -> None:
    """Probe (session 20): the catalogue is true: a text for an answer belongs to a code either
    API answers or a refusal of the domain (`unknown_rules_version` is one no HTTP answer
    carries, ADR-43); `invalid_request` and `invalid_request.param` were texts of a code
    nothing has. The rest are the tools' lines (messages_tools) and the JSON error texts of
    `malformed_json.syntax` (`json.*`)."""
    answered = set(CODES) | set(UNLISTED_CODES) | set(REFUSALS)
    families = {m.code_of(k) for k in m.CATALOGUE if k not in m.TOOLS}
    assert sorted(families - answered - {"json"}) == []


def test_every_code_has_a_turkish_title_of_its_own() -> None:
    """Issue 11: a problem's RFC 9457 `title` follows the language too: every code the API
    answers has a Turkish title, which is not the English one (the code in words)."""
    assert set(m.PROBLEM_TITLES_TR) == set(CODES) | set(UNLISTED_CODES)
    for code in [*CODES, *UNLISTED_CODES]:
        assert m.problem_title(code, "en") == code.replace("_", " ")
        assert m.problem_title(code, "tr") not in ("", m.problem_title(code, "en")), code


def test_the_codes_outside_every_operation_are_in_the_catalogue() -> None:
    """The edge's answers outside any operation's list (Litestar's 405, an unmapped status, an
    unhandled error) speak both languages too, with a Turkish title of their own."""
    assert set(UNLISTED_CODES) <= {m.code_of(k) for k in m.CATALOGUE}
    assert not set(UNLISTED_CODES) & set(CODES)


@pytest.mark.parametrize("case_id", _params())
async def test_every_refusal_answers_in_english_when_asked(case_id: str, memory_api: Api) -> None:
    """Issue 11: each refusal of tests/http/test_problems.py, asked with Accept-Language: en,
    has the same code and an English detail from the catalogue (no mixed text)."""
    c = CASES[case_id]
    memory_api.client.headers["Accept-Language"] = "en"
    async with AsyncExitStack() as stack:
        response = await (await c.scenario(memory_api, stack))
    if response.request.headers.get("accept-language") != "en":
        pytest.skip("the case sends its request from an API of its own, without the header")
    body = assert_problem(response, c.status, c.code)
    assert response.headers["content-language"] == "en"
    assert "accept-language" in response.headers["vary"].lower()
    assert stored_language(response.content) == "en", body
    assert body["title"] == c.code.replace("_", " ")  # RFC 9457 title in English too


async def test_a_domain_refusal_in_both_languages(memory_api: Api) -> None:
    """R-4.1 not_your_province: Turkish by default, English on the header or `?lang=en`; the
    code and the details are the same in both."""
    bey = await create_trial(memory_api.client)
    body = {"orders": [{"province": ISTANBUL, "kind": "hold"}]}
    answers = [
        await memory_api.client.post(bey.url("/orders"), headers=bey.auth(), json=body),
        await memory_api.client.post(bey.url("/orders"), headers={**bey.auth(), **EN}, json=body),
        await memory_api.client.post(bey.url("/orders?lang=en"), headers=bey.auth(), json=body),
    ]
    tr, en, linked = (assert_problem(r, 403, "not_your_province") for r in answers)
    assert tr["detail"] == "İstanbul sizin değil"
    assert en["detail"] == linked["detail"] == "İstanbul is not yours"
    assert (tr["title"], en["title"], linked["title"]) == (
        "sizin iliniz değil",
        "not your province",
        "not your province",
    )
    assert {k: v for k, v in tr.items() if k not in ("detail", "title")} == {
        k: v for k, v in en.items() if k not in ("detail", "title")
    }
    assert [r.headers["content-language"] for r in answers] == ["tr", "en", "en"]


@pytest.mark.parametrize(
    ("method", "path", "content", "status", "code", "tr", "en"),
    [
        ("GET", "/v1/nowhere", None, 404, "not_found", "Bu adreste bir şey yok", None),
        ("DELETE", "/v1/seasons", None, 405, "method_not_allowed", None, None),
        ("POST", "/v1/seasons", b"{", 400, "malformed_json", None, None),
        (
            "POST",
            "/v1/seasons",
            b'{"memleket": "x"}',
            422,
            "invalid_body",
            "$.memleket: 1 … 81 arasında bir tamsayı olmalı",
            "$.memleket: must be an integer 1 … 81",
        ),
        (
            "POST",
            "/v1/seasons",
            b"{}",
            422,
            "invalid_body",
            "Deneme sezonu memleket ister ($.memleket: 1 … 81)",
            "A trial season needs a memleket ($.memleket: 1 … 81)",
        ),
        (
            "POST",
            "/v1/seasons/x/orders",
            b'{"orders": [{"province": 6}]}',
            422,
            "invalid_body",
            "Zorunlu alan eksik: $.orders[0].kind",
            "Missing required field: $.orders[0].kind",
        ),
    ],
)
async def test_litestar_refusals_speak_both_languages(
    memory_api: Api,
    method: str,
    path: str,
    content: bytes | None,
    status: int,
    code: str,
    tr: str | None,
    en: str | None,
) -> None:
    """Issue 11: schema validation, 404 and 405 come from the catalogue too, not Litestar's
    English; Turkish by default."""
    for lang, want in (("tr", tr), ("en", en)):
        r = await memory_api.client.request(
            method,
            path,
            content=content,
            headers={"Accept-Language": lang, "Content-Type": "application/json"},
        )
        body = assert_problem(r, status, code)
        assert r.headers["content-language"] == lang
        assert stored_language(r.content) == lang, body
        if want is not None:
            assert body["detail"] == want


async def test_a_replayed_refusal_keeps_its_first_language(memory_api: Api) -> None:
    """RELIABILITY 2: a refusal stored under an Idempotency-Key is replayed as first sent, and
    says the language it was sent in, whatever the retry asks for."""
    bey = await create_trial(memory_api.client)
    spend = {"kind": "sur", "province": ISTANBUL}
    first = await memory_api.client.post(
        bey.url("/spend"), headers={**bey.auth("k-1"), **EN}, json=spend
    )
    again = await memory_api.client.post(bey.url("/spend"), headers=bey.auth("k-1"), json=spend)
    assert_problem(first, 403, "not_your_province")
    assert again.content == first.content
    assert again.headers["content-language"] == first.headers["content-language"] == "en"
    assert "x-seksenbir-stored-language" not in again.headers


@pytest.mark.parametrize(
    "body",
    [
        b"{",
        b"x",
        b'{"memleket": 6}x',
        b'{"memleket" 6}',
        b'{"memleket": 6,}',
        b'{"seed": "1" "memleket": 6}',
    ],
)
async def test_issue_11_a_json_syntax_error_is_told_in_one_language(
    body: bytes, memory_api: Api
) -> None:
    """400 malformed_json names what is wrong in the language asked for: msgspec's English
    reason ("Input data was truncated", "JSON is malformed: trailing characters (byte 8)")
    never reaches a Turkish answer."""
    from shared.domain.messages import language_of
    from tests.cli_language import english_in, turkish_in

    said = {}
    for lang in ("tr", "en"):
        r = await memory_api.client.post(
            "/v1/seasons",
            content=body,
            headers={"Accept-Language": lang, "Content-Type": "application/json"},
        )
        assert (r.status_code, r.json()["code"]) == (400, "malformed_json"), r.text
        said[lang] = r.json()["detail"]
        assert language_of("malformed_json", said[lang]) == lang, said[lang]
    assert english_in([said["tr"]]) == [], said["tr"]
    assert turkish_in([said["en"]]) == [], said["en"]
    assert said["tr"] != said["en"]
