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
