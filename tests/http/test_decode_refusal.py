"""One reader of msgspec's English (shared.app.http.decode_refusal) serves a body's 422
(shared.app.http.strict) and an export's impossible event (shared.app.ops.export_read): each
message is read once, into its place and what it broke."""

from __future__ import annotations

import msgspec
import pytest

from shared.app.http.decode_refusal import Refusal, read


@pytest.mark.parametrize(
    ("message", "want"),
    [
        ("Object contains unknown field `x`", Refusal("Object contains unknown field `x`", None, None, "unknown_field", name="x")),
        ("Object missing required field `seat` - at `$.orders[0]`", Refusal("Object missing required field `seat`", "$.orders[0]", None, "missing", name="seat")),
        ("Expected `int` <= 19 - at `$.seat`", Refusal("Expected `int` <= 19", "$.seat", None, "bound", kind="int", op="<=", limit=19)),
        ("Expected `str` of length >= 2 - at `$.name`", Refusal("Expected `str` of length >= 2", "$.name", None, "length", kind="str", op=">=", limit=2)),
        ("Expected `array` of length 2 - at `$.pair`", Refusal("Expected `array` of length 2", "$.pair", None, "length", kind="array", limit=2)),
        ("Expected `str` matching regex '^[0-9]+$' - at `$.seed`", Refusal("Expected `str` matching regex '^[0-9]+$'", "$.seed", None, "pattern")),
        ("Expected `int | null`, got `str` - at `key` in `$.m`", Refusal("Expected `int | null`, got `str`", "key", "$.m", "kind", kind="int | null", got="str")),
        ("Invalid enum value 'ab' - at `$.kind`", Refusal("Invalid enum value 'ab'", "$.kind", None, "value", value="'ab'")),
        ("Something msgspec may say one day", Refusal("Something msgspec may say one day", None, None, "other")),
    ],
)  # fmt: skip
def test_each_message_is_read_into_its_place_and_what_it_broke(message: str, want: Refusal) -> None:
    assert read(message) == want


def test_it_reads_msgspec_s_own_messages() -> None:
    class In(msgspec.Struct):
        seat: int = msgspec.field(default=1)

    with pytest.raises(msgspec.ValidationError) as caught:
        msgspec.json.decode(b'{"seat": "x"}', type=In)
    assert read(str(caught.value)) == Refusal(
        "Expected `int`, got `str`", "$.seat", None, "kind", kind="int", got="str"
    )


class _Body(msgspec.Struct, forbid_unknown_fields=True):
    name: str | None = None
    seat: int = 1
    flags: list[bool] = []
    either: int | str | None = None


@pytest.mark.parametrize(
    ("body", "tr", "en"),
    [
        (b'{"name": 3}', "$.name: bir metin ya da boş (null) bekleniyor, bir tamsayı verildi", "$.name: expected a string or null, got an integer"),
        (b'{"seat": "x"}', "$.seat: bir tamsayı bekleniyor, bir metin verildi", "$.seat: expected an integer, got a string"),
        (b'{"flags": {}}', "$.flags: bir dizi bekleniyor, bir nesne verildi", "$.flags: expected an array, got an object"),
        (b'{"flags": [1.5]}', "$.flags[0]: bir mantıksal değer (true ya da false) bekleniyor, bir sayı verildi", "$.flags[0]: expected a boolean (true or false), got a number"),
        (b'{"either": []}', "$.either: bir tamsayı ya da bir metin ya da boş (null) bekleniyor, bir dizi verildi", "$.either: expected an integer or a string or null, got an array"),
    ],
)  # fmt: skip
def test_a_body_of_the_wrong_kind_is_said_in_words_not_msgspec_s_type_names(
    body: bytes, tr: str, en: str
) -> None:
    """Probe (session 23): a 422 `invalid_body` said "$.name: str | null bekleniyor, int
    verildi": msgspec's type names inside the Turkish (and English) text. The kinds are words,
    in the language asked for; the code and the JSON path stay."""
    from shared.app.http.strict import body_problem

    with pytest.raises(msgspec.ValidationError) as caught:
        msgspec.json.decode(body, type=_Body)
    problem = body_problem(caught.value, _Body)
    assert problem.key == "invalid_body.type"
    assert (problem.text("tr"), problem.text("en")) == (tr, en)


def test_litestar_s_own_validation_messages_say_kinds_in_words_too() -> None:
    """The fallback for a body Litestar itself refused (shared.app.http.problems) reads the
    same msgspec English: its kinds are the same words as a decoded body's."""
    from shared.app.http.problems import _validation_part
    from shared.domain import messages

    key, params = _validation_part(
        {"message": "Expected `str | null`, got `int` - at `$.name`", "source": "body"}
    )
    assert key == "invalid_body.type"
    assert messages.render(key, "en", params) == "$.name: expected a string or null, got an integer"
    assert messages.render(key, "tr", params) == (
        "$.name: bir metin ya da boş (null) bekleniyor, bir tamsayı verildi"
    )
