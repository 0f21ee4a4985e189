"""The one text policy for user-supplied strings (rooms/text.py), rule by rule."""

import pytest

from rooms import text


@pytest.mark.parametrize("ch", ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068",
                                "\u2069", "\u200e", "\u200f", "\u061c"])
def test_bidi_controls_are_refused(ch):
    with pytest.raises(ValueError, match="direction"):
        text.clean(f"abc{ch}def", 50)


@pytest.mark.parametrize("ch", ["\x00", "\x1b", "\x7f", "\x85", "\n", "\r", "\t"])
def test_control_characters_are_refused(ch):
    with pytest.raises(ValueError, match="control"):
        text.clean(f"ab{ch}c", 50)


@pytest.mark.parametrize("ch", ["\u200b", "\u2060", "\ufeff", "\u00ad", "\u2028", "\u2029", "\U000e0041"])
def test_invisible_format_characters_are_refused(ch):
    with pytest.raises(ValueError, match="invisible"):
        text.clean(f"ab{ch}c", 50)


def test_joiners_that_scripts_and_emoji_need_stay():
    assert text.clean("👩\u200d💻 می\u200cخواهم", 50) == "👩\u200d💻 می\u200cخواهم"


def test_combining_marks_are_capped():
    assert text.clean("Tiếng Việt", 50) == "Tiếng Việt"  # NFC: precomposed
    assert text.clean("a" + "\u0301\u0302\u0303\u0304", 50)  # four marks on one letter: allowed
    with pytest.raises(ValueError, match="combining"):
        text.clean("a" + "\u0301" * 19, 50)  # the 19 stacked marks
    assert text.clean("a\u0301\u0302b\u0303\u0304", 50)  # counted per character


@pytest.mark.parametrize("blank", ["\u3164", "\u3164\u3164", "\u200b", " ", "\u3000", "\u2800", "\u115f\u1160",
                                   "\uffa0", "\u0301", "\u200d"])
def test_invisible_only_texts_and_names_are_refused(blank):
    with pytest.raises(ValueError):
        text.clean(blank, 20)
    with pytest.raises(ValueError):
        text.name(blank, 20)


def test_names_refuse_blank_looking_characters_anywhere():
    assert text.clean("Ann\u3164", 20) == "Ann\u3164"  # a chat line may hold one among visible text
    for bad in ("Ann\u3164", "\u3164Ann", "An\u2800n", "Ann\u3000"):
        with pytest.raises(ValueError, match="blank"):
            text.name(bad, 20)
    assert text.name("张三 Li", 20) == "张三 Li"


def test_nfc_and_length_after_normalising():
    assert text.clean("e\u0301", 1) == "\u00e9"
    with pytest.raises(ValueError, match="1 to 3"):
        text.clean("abcd", 3)
    with pytest.raises(ValueError):
        text.clean("", 3)
    with pytest.raises(ValueError):
        text.clean(5, 3)


def test_duplicate_display_names_are_numbered():
    names = {"p1": "Ann", "p2": "Bob", "p3": "Ann", "p4": "ＡＮＮ", "p5": "ann"}
    assert text.disambiguate(names) == {"p1": "Ann", "p2": "Bob", "p3": "Ann #2", "p4": "ＡＮＮ #3", "p5": "ann #4"}
    assert text.disambiguate({"p1": "Ann", "p2": "Bob"}) == {"p1": "Ann", "p2": "Bob"}
