"""Standard codes a tool takes (time zones, countries, currencies) said by the names people
use, where the facts show which kind of code a parameter takes."""

import pytest

from play2prompt.evidence.everyday import everyday_forms
from play2prompt.evidence.fact_targets import form_problems
from play2prompt.evidence.named_codes import STANDARDS, code_name, kind_shown, standard_shown
from play2prompt.tools.model import Invocation

REJECTED = "'Canada' is rejected (no rates for destination). For example: 'US'."


@pytest.mark.parametrize("value, about, name", [
    ("America/New_York", "", "New York time"),            # a zone needs no other fact
    ("Asia/Kolkata", "to tz", "Kolkata time"),
    ("US", f"destination {REJECTED}", "United States"),   # a country's name was rejected
    ("DE", "destination country", "Germany"),              # the description names the kind
    ("KR", "country", "South Korea"),                      # the common name, not the ISO one
    ("EUR", "to currency", "Euro"),
    ("USD", "One of: EUR, USD.", "US Dollar"),            # every other listed value a code
    ("GB", "destination 'New York' is rejected. 'US' 'GB' 'DE'",  # the tool took two more
     "United Kingdom"),
])
def test_a_code_of_a_kind_the_facts_show_is_said_by_its_name(value, about, name):
    named = code_name(value, about)
    assert named is not None and named.name == name
    form = everyday_forms(value, "", about)[0]
    assert form.text == name and form.exact_code
    assert form.said_in(f"Could you do it for {name.lower()}, please?")
    others = Invocation("t", {})
    assert form_problems(form, value, f"Could you do it for {value}, please?", "it", others)


@pytest.mark.parametrize("value, about", [
    ("CA", "state"),                          # California's code too: no fact says country
    ("CA", "destination"),                    # "destination" names no kind
    ("CA", "One of: CA, NY, TX."),            # NY and TX are no country codes
    ("ALL", "One of: ALL, SOME."),            # a word, not the lek
    ("XAU", "currency"),                      # a metal: no one says it as a currency
    ("us", "country"),                        # a code is written in capitals
    ("Etc/GMT+5", ""),                        # no place to say
    ("Europe/Nowhere", ""),
    ("VN", "country"),                        # ISO's "Viet Nam" is a catalogue's name...
])
def test_no_name_where_the_kind_is_not_shown_or_the_value_is_no_code(value, about):
    if value == "VN":   # ...but pycountry's common name is people's: the form is "Vietnam"
        assert code_name(value, about).name == "Vietnam"
        return
    assert code_name(value, about) is None


def test_a_currency_is_said_in_the_plural_too():
    assert everyday_forms("EUR", "", "currency")[0].said_in("200 euros in yen")


def test_a_catalogue_name_with_a_comma_is_not_said():
    assert code_name("IR", "country").name == "Iran"          # common name
    assert code_name("MK", "country") is None or "," not in code_name("MK", "country").name


def test_the_kind_is_shown_by_a_name_not_by_a_code_of_another_standard():
    assert kind_shown("country", "US", "'Canada' is rejected")
    assert not kind_shown("country", "US", "'USA' is rejected")   # a code, not a name
    assert kind_shown("currency", "EUR", "'dollars' is rejected. 'Yen' is rejected.")


def test_the_code_counts_as_written_only_in_its_own_case():
    """"Send it to us in Germany" does not write the code "US"; "to the US" does."""
    form = everyday_forms("US", "", "destination country")[0]
    others = Invocation("shipping_quote", {"weight": 500})
    label = "destination"
    assert form_problems(form, "US", "Ship 500 g to the United States for us.", label,
                         others) == []
    written = form_problems(form, "US", "Ship 500 g to the United States (US).", label, others)
    assert written and "the code the tool takes" in written[0]
    missing = form_problems(form, "US", "Ship 500 g to America.", label, others)
    assert missing and "United States" in missing[0]


def test_a_hex_colour_is_said_by_its_basic_name_and_in_rgb_notation():
    white, rgb = everyday_forms("#FFFFFF", "", "")
    assert (white.text, rgb.text) == ("white", "rgb(255, 255, 255)")
    assert white.said_in("White text on a #000000 page") and white.exact_code
    assert rgb.said_in("rgb(255,255,255) on black") and not rgb.said_in("rgb(255, 0, 0)")
    assert [f.text for f in everyday_forms("#ff0", "", "")] == ["yellow", "rgb(255, 255, 0)"]
    assert [f.text for f in everyday_forms("#1a73e8", "", "")] == ["rgb(26, 115, 232)"]
    assert everyday_forms("#12345", "", "") == []        # no colour
    others = Invocation("contrast", {"background": "#000000"})
    written = form_problems(white, "#FFFFFF", "Is white (#FFFFFF) readable on #000000?",
                            "foreground", others)
    assert written and "the code the tool takes" in written[0]


def test_play_shows_the_standard_where_codes_worked_and_a_name_was_refused():
    country = "destination country 'Canada' is rejected"
    assert standard_shown(["US", "CA"], {"Canada", "USA"}, country) == STANDARDS["country"]
    assert standard_shown(["US", "CA"], {"zzqx"}, country) is None        # no name refused
    assert standard_shown(["US", "Canada"], {"USA"}, country) is None     # a name worked
    assert standard_shown(["America/New_York"], {"Tokyo"}, "to tz") == STANDARDS["zone"]
    assert standard_shown([], {"Canada"}, country) is None


def test_the_facts_say_the_standard_instead_of_the_names_refused():
    """fresh17: the facts doc said "'Canada' is rejected ... For example: 'US'", and the task
    model wrote destination='Canada' even for "to IE"; the calls play made show the
    standard."""
    from pathlib import Path

    from play2prompt.evidence.facts import FactBook
    from play2prompt.tools.loading import load_tools
    from play2prompt.tools.model import Observation

    fresh = Path(__file__).resolve().parents[2] / "examples" / "fresh" / "tools.json"
    tool = next(t for t in load_tools(fresh) if t.name == "shipping_quote")
    book = FactBook(tool)
    ok = Observation(True, {"price": 18.5, "currency": "GBP", "delivery_days": 8})
    for dest in ("US", "CA"):
        book.observe(Invocation(tool.name, {"weight": 10, "service": "STD",
                                            "destination": dest}), ok)
    refused = Observation(False, None, "ValueError: no rates for destination 'Canada'",
                          "exception")
    book.observe(Invocation(tool.name, {"weight": 10, "service": "STD",
                                        "destination": "Canada"}), refused)
    said = " ".join(book.sentences("destination"))
    assert "destination takes a two-letter country code (ISO 3166-1)" in said
    assert "'Canada'" not in said
