"""The one language policy (issue 11; docs/api.md Language): every refusal code and every line
for people has a Turkish and an English text in shared.domain.messages, neither mixing the two;
the game's own words (Divan, Hain, Han, Sürgün, Bölge Beyi, Kurultay, memleket …) stay as they
are in both."""

from __future__ import annotations

import re
from string import Formatter

import pytest

from shared.app.http.problem_codes import CODES
from shared.domain import commands as c
from shared.domain import messages as m

KEYS = sorted(m.CATALOGUE)
# The game's words and technical names, the same in both texts (issue 11).
GAME_WORDS = re.compile(
    r"Divan|Hain|Han\b|Sürgün|Bölge Beyi|Kurultay|memleket|Perde|Bayram|milis|sur\b|bey\b|Bey\b"
    r"|Idempotency-Key|Authorization: Bearer|registration_closes_at|divan_interval_seconds"
    r"|SEKSENBIR_PG_DSN|`seksenbir \w+`|seksenbir\b|--\w+|JSON|SEZON",
)
TURKISH_LETTERS = re.compile(r"[çğıöşüÇĞİÖŞÜ]")
ENGLISH_WORDS = re.compile(r"\b(the|is|are|and|not|no|of|to|with|only|must|try|again|you)\b", re.I)
# every parameter a template may name: refusal details, their plate names, edge and CLI values
PARAMS = {
    "length": 1001,
    "seats": [19],
    "byte": 12,
    "heads": "ok: 3 published heads are in the chain",
    "redacted": 4,
    "repeated": 2,
    "hash": "ab" * 32,
    "province": 6,
    "memleket": 6,
    "target": 34,
    "seat": 8,
    "side": "attack",
    "divan": 3,
    "cost": 3,
    "gold": 1,
    "minimum": 60,
    "maximum": 81,
    "rules_version": "seksenbir-rules/9",
    "known": "seksenbir-rules/1, seksenbir-rules/2",
    "earliest": "2026-01-01T20:00:00+03:00",
    "latest": "2027-01-01T20:00:00+03:00",
    "registration_closes_at": "2026-01-01T20:00:00+03:00",
    "limit": 4,
    "wait": 30,
    "field": "orders[0].units",
    "at": "orders[0].units",
    "expected": "int",
    "got": "str",
    "constraint": ">= 1",
    "standings": "x",
    "score": 4,
    "season": "s",
    "events": 9,
    "refers_to": 120,
    "applied": "0001",
    "database": "postgres@127.0.0.1:5432/x",
    "error": "e",
    "text": "x",
    "n": 0,
    "last": 16,
    "count": 2,
    "changed": 1,
    "mark": "same",
    "namespace": "sb",
    "ids": "a, b",
    "more": 2,
    "most": 100,
    "own": "s1",
    "stream": "s2",
    "where": "w",
    "migrations": "none",
    "broker": "redis://r/0",
    "read": "redis://r/1",
    "base": "http://h:1",
    "resolver": "http://h:2",
    "folder": "/tmp/x",
    "plate": 6,
    "want": 3,
    "source": "x.jsonl",
    "token": "s.3.abc",
    "head": "ab12",
    "total": 3,
    "ok": 2,
    "failed": 1,
    "seconds": 0.5,
    "file": "x.jsonl",
    "reason": "r",
    "held": 4,
    "commitment": "9f",
    "version": 5,
    "reached": 4,
    "rules": "seksenbir-rules/2",
    "phase": "divans",
    "kind": "alliance",
    "who": "3. bey",
    "a": 1,
    "b": 2,
    "line": 3,
    "type": "divan_resolved",
    "event_id": "u",
    "why": "w",
    "what": "w",
    "seed": "s",
    "choices": "advance, support, hold",
    "replay": "ok",
    # ops: explain, what-if, shadow, fork (issue 13)
    "origin": 6,
    "units": 3,
    "rule": "R-5.3",
    "name": "Ankara",
    "defender": "Bey 2",
    "index": 1,
    "advances": "x",
    "support": 2,
    "ordered": 4,
    "sur": 1,
    "hemsehri": 1,
    "value": 2,
    # a refused setting (shared/setting_checks.py)
    "variable": "SEKSENBIR_POOL_MAX",
    "other": "SEKSENBIR_RESOLVE_TIME_LIMIT_MS",
    "on": "1, true, yes, on",
    "off": "0, false, no, off",
    "low": 1,
    "high": 19,
    "item": "'foo'",
    "form": "redis[s]://host:port/N",
    "key": "(3, fate, 6/attack)",
    "media_type": "text/plain",
    "charset": "latin-1",
    "parameters": "boundary=x",
    "names": "'comment'",
    "character": "U+2028",
    "escape": "\\ud800",
    "attack": 7,
    "defence": 5,
    "taker": 1,
    "entering": 2,
    "a_lost": 1,
    "d_lost": 3,
    "recorded": "held",
    "what_if": "taken",
    "through": 8,
    "provinces": 3,
    "cmd": "x",
    "divans": 16,
    "differ": 0,
    # sealed orders (ADR-57)
    "digests": 304,
    "sealed": "ok",
    # the chat in exports (ADR-106)
    "texts": 4,
    "withheld": 2,
    # read your writes (issue 20): not_yet_projected's members
    "projected_version": 4,
    # reading an export from outside (shared/app/ops/export_read.py)
    "stored": "'orders_submitted.v1'",
    "said": 3,
    "op": "≤",
    # `seksenbir up` on a taken port
    "address": "127.0.0.1:8081",
    "role": "projections",
}


def _fields(template: str) -> set[str]:
    return {f for _lit, f, _spec, _conv in Formatter().parse(template) if f}


@pytest.mark.parametrize("key", KEYS)
def test_every_key_has_both_texts_with_the_same_parameters(key: str) -> None:
    """Issue 11: a Turkish and an English text for every key, naming the same parameters, each
    renderable from a refusal's details (plate names derived: `province_name`, …)."""
    text = m.CATALOGUE[key]
    assert text.tr.strip() and text.en.strip()
    # "== Kurultay ==" and the banner's "Redis: …" line are the same in both
    assert text.tr != text.en or key in ("cli.kurultay", "up.redis"), key
    fields_tr, fields_en = _fields(text.tr), _fields(text.en)
    assert fields_tr == fields_en, key
    allowed = set(PARAMS) | {f"{p}_name" for p in ("province", "memleket", "target")}
    assert fields_tr <= allowed, fields_tr - allowed
    for lang in m.LANGS:
        assert m.render(key, lang, PARAMS)


@pytest.mark.parametrize("key", KEYS)
def test_no_text_mixes_the_two_languages(key: str) -> None:
    """Issue 11: no "Türkçe / English" strings; no Turkish in an English text, no English in a
    Turkish one, apart from the game's own words."""
    text = m.CATALOGUE[key]
    for t in text:
        assert " / " not in GAME_WORDS.sub("", t), t
    assert not TURKISH_LETTERS.search(GAME_WORDS.sub("", text.en)), text.en
    assert not ENGLISH_WORDS.search(GAME_WORDS.sub("", text.tr)), text.tr


def test_every_code_the_domain_and_edge_give_a_status_for_is_catalogued() -> None:
    """Issue 11: every code with an HTTP status (shared.app.http.problem_codes.CODES, which the problems'
    statuses come from) has texts; the code of a key is its first part."""
    codes = {m.code_of(k) for k in KEYS}
    assert set(CODES) <= codes
    assert m.code_of("wrong_phase.kurultay_over") == "wrong_phase"


def test_a_refusal_renders_in_either_language_from_its_details() -> None:
    """R-1.4 memleket_taken: the text names the province from its plate, in tr and en; the
    details stay the stable, language-free part."""
    r = c.reject("memleket_taken", memleket=6, free_neighbours=[14, 18])
    assert (r.code, r.details) == ("memleket_taken", {"memleket": 6, "free_neighbours": [14, 18]})
    assert r.text("tr") == "Ankara alınmış; boş komşulardan birini seçin"
    assert r.text("en") == "Ankara is taken; choose one of its free neighbours"
    assert r.message == r.text("tr")
    assert m.language_of("memleket_taken", r.text("en")) == "en"


def test_a_refusal_written_the_old_way_still_answers_in_both_languages() -> None:
    """A code not in the catalogue yet (a `reject(code, "Türkçe / English")` written elsewhere)
    still answers each language its own half; add the code to the catalogue instead."""
    r = c.reject("brand_new", "Yeni bir ret / a new refusal", x=1)
    assert (r.code, r.text("tr"), r.text("en")) == ("brand_new", "Yeni bir ret", "a new refusal")
    # a code the catalogue has, written the old way, keeps the text it was written with
    old = c.reject("wrong_phase", "Eski / old")
    assert (old.code, old.text("tr"), old.text("en")) == ("wrong_phase", "Eski", "old")
    built = c.Rejection(code="wrong_phase", message="Eski / old")
    assert (built.text("tr"), built.text("en")) == ("Eski", "old")
    with pytest.raises(KeyError, match=r"messages\.py"):
        c.reject("brand_new")  # the new style needs its texts in the catalogue


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        (None, "tr"),
        ("en", "en"),
        ("en-GB,en;q=0.9", "en"),
        ("tr-TR,tr;q=0.9,en;q=0.8", "tr"),
        ("de, en;q=0.5", "en"),
        ("en;q=0.2, tr;q=0.7", "tr"),
        ("fr", "tr"),
        ("*", "tr"),
        ("en;q=0", "tr"),
    ],
)
def test_accept_language_picks_the_better_of_tr_and_en(header: str | None, lang: str) -> None:
    """RFC 9110 §12.5.4: quality values count; neither language asked for is Turkish."""
    from shared.app.http.language import negotiate

    headers = [(b"accept-language", header.encode())] if header is not None else []
    assert negotiate({"headers": headers, "query_string": b""}) == lang
    # `?lang=` wins over the header (for links a browser follows)
    other = "tr" if lang == "en" else "en"
    assert negotiate({"headers": headers, "query_string": f"lang={other}".encode()}) == other


# English words after a count that are the sentence's verb, not the count's noun ("{seat} is")
VERBS = frozenset({"is", "has", "does", "holds", "exists", "occurs", "belongs", "was", "supports"})
VERBS |= {"seals"}
# "{ok} of {total} seasons verify": the noun is the whole's, the same for every count of it
OF_A_WHOLE = frozenset({"audit.all_summary"})


@pytest.mark.parametrize("key", KEYS)
def test_an_english_count_says_its_noun_in_the_singular_after_1(key: str) -> None:
    """Found from outside: `seksenbir explain --lang en` printed "1 units". English writes a
    count with its noun as `{n:unit|units}` (messages.Count): the singular after 1, the plural
    after any other count; a fixed plural after a placeholder says "1 units". Turkish takes no
    plural after a number ("1 birlik", "3 birlik")."""
    after = re.findall(r"\{\w+\} ([a-z']+)", m.CATALOGUE[key].en)
    fixed = [w for w in after if w.endswith(("s", "s'")) and w not in VERBS]
    assert key in OF_A_WHOLE or not fixed, (key, fixed)


def test_a_count_takes_the_singular_after_1_and_the_plural_otherwise() -> None:
    """messages.Count through render: "1 difference", "2 differences", "0 differences"."""
    said = [m.render("shadow.differences", "en", {"count": n}) for n in (0, 1, 2)]
    assert said == ["0 differences", "1 difference", "2 differences"]
    assert m.render("shadow.differences", "tr", {"count": 1}) == "1 fark"
    assert m.render("too_many_requests", "en", {"wait": 1}).endswith("try again in 1 second")


def test_a_count_with_its_noun_reads_back_from_english_as_the_number() -> None:
    """said_from_english (texts written in English below the edge, shown in the language
    asked for) reads `{n:one|many}` back as the number, not as "1 receiver"."""
    for n in (1, 5):
        english = m.render("receivers_full", "en", {"limit": n})
        said = m.said_from_english("receivers_full", english)
        assert said is not None, english
        assert said.text("tr") == m.render("receivers_full", "tr", {"limit": n})
        assert said.text("en") == english
