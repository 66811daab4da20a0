"""Veil's own recognizers and name rules, each on short strings, each with no-match rows."""

from __future__ import annotations

import pytest

from lang.thread import split_thread
from privacy.context import has_brand_ending, is_role_word, is_typo, no_name_here
from privacy.names import find_names
from privacy.phone import phone_key
from privacy.recognizers.address import NamedStreetRecognizer, StreetAddressRecognizer
from privacy.recognizers.card import CardNumberRecognizer
from privacy.recognizers.email import AnyDomainEmailRecognizer
from privacy.recognizers.phone import RegionPhoneRecognizer
from privacy.recognizers.titled_name import TitledNameRecognizer


def _found(recognizer: object, entity: str, text: str) -> list[str]:
    results = recognizer.analyze(text, [entity])  # type: ignore[attr-defined]
    return [text[r.start : r.end] for r in results]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call +44 7700 900123 tonight", ["+44 7700 900123"]),
        ("(415) 555-0132", ["(415) 555-0132"]),
        ("mein Handy: 030 1234567", ["030 1234567"]),
        ("appelle le 06 12 34 56 78", ["06 12 34 56 78"]),
        ("ligue 11 98765-4321", ["11 98765-4321"]),
        ("tel 0487 98 11 92", ["0487 98 11 92"]),
        ("001-253-366-9781 x123", ["001-253-366-9781 x123"]),
        ("4155550132", ["4155550132"]),
        ("on 12/03/2026 at 10:02", []),
        ("2024-06-03", []),
        ("order 12345, room 4021", []),
        ("from 2019-2020", []),
        ("card 4111111111111111", []),
        ("meet at 10.30", []),
        # a date and the hours after it
        ("volunteer shift 12/12 9-12", []),
        ("on 12/12/2026 9:00-12:00", []),
        ("call 089/1234567", ["089/1234567"]),
    ],
)
def test_phone_recognizer(text: str, expected: list[str]) -> None:
    assert _found(RegionPhoneRecognizer(), "PHONE_NUMBER", text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mail priya.patel@example.com", ["priya.patel@example.com"]),
        ("ann+cal@team.internal, bob@x.example", ["ann+cal@team.internal", "bob@x.example"]),
        ("Jürgen.Weiß@firma.de", ["Jürgen.Weiß@firma.de"]),
        ("@priya on slack, user@localhost, a@b.c", []),
    ],
)
def test_email_recognizer(text: str, expected: list[str]) -> None:
    assert _found(AnyDomainEmailRecognizer(), "EMAIL_ADDRESS", text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my card 213164126086955 is lost", ["213164126086955"]),
        ("Karte: 5038 6729 7114", ["5038 6729 7114"]),
        ("block card no 4415101282806639538", ["4415101282806639538"]),
        ("my card 213164126086956 is lost", []),  # checksum fails
        ("order 213164126086955 shipped", []),  # no card word
    ],
)
def test_card_number_recognizer(text: str, expected: list[str]) -> None:
    assert _found(CardNumberRecognizer(), "CREDIT_CARD", text) == expected


@pytest.mark.parametrize(
    ("spellings", "region"),
    [
        (["+1 415 555 0132", "(415) 555-0132", "415.555.0132", "001 415 555 0132"], "US"),
        (["+44 7700 900123", "07700 900123", "07700-900-123"], "GB"),
        (["+49 30 1234567", "030 1234567", "030/1234567"], "DE"),
    ],
)
def test_phone_key_merges_spellings(spellings: list[str], region: str) -> None:
    keys = {phone_key(s, (region, "US")) for s in spellings}
    assert len(keys) == 1 and None not in keys


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I live at 12 Elm St, Springfield", ["12 Elm St"]),
        ("2367 Shattuck Avenue, Berkeley", ["2367 Shattuck Avenue"]),
        ("Flat 3, 22 Baker Street", ["Flat 3, 22 Baker Street"]),
        ("4759 William Haven Apt. 194", ["4759 William Haven Apt. 194"]),
        ("Wir wohnen in der Hauptstraße 5", ["Hauptstraße 5"]),
        ("chez moi, 12 rue de Rivoli", ["12 rue de Rivoli"]),
        ("moro na Rua Augusta 100", ["Rua Augusta 100"]),
        ("en Calle Mayor 3, Madrid", ["Calle Mayor 3"]),
        ("rendez-vous Place Vendôme 12, Paris", ["Place Vendôme 12"]),
        # someone's home and a date, not a street
        ("Dinner at our place Wed 12/9, 7ish?", []),
        ("party at my place Sat 12/12", []),
        ("this has moved to Friday Dec 4, same time", []),
        ("see you on Sat Nov 28", []),
        ("Erzsébet tér 19.", ["Erzsébet tér 19."]),
        # issue 3: street forms of more countries, and street corners
        (
            "the corner of Csabai kapu 39. and Mathias Pass",
            ["the corner of Csabai kapu 39. and Mathias Pass"],
        ),
        ("meet at the corner of Main and Broadway tomorrow", ["the corner of Main and Broadway"]),
        ("P.O. Box 242, Nuuk", ["P.O. Box 242"]),
        ("Postfach 1234", ["Postfach 1234"]),
        ("ul. Narewska 94", ["ul. Narewska 94"]),
        ("Király u. 15.", ["Király u. 15."]),
        ("at 420 Gairbekov Rapids", ["420 Gairbekov Rapids"]),
        ("31 Rue Al Imam Al Bakri, Cite", ["31 Rue Al Imam Al Bakri"]),
        ("136 Filadelfeos Str., Klirou", ["136 Filadelfeos Str."]),
        ("12 rue de Rivoli, 75001 Paris", ["12 rue de Rivoli"]),
        ("the pub at 115 Wellington Street\n21/11/26, 17:40", ["115 Wellington Street"]),
        ("I live at 12 Elm St no way", ["12 Elm St"]),
        ("at 12 Upper St Martin's Lane, London", ["12 Upper St Martin's Lane"]),
        ("69 Av Sidi Lakhmi, Tunis", ["69 Av Sidi Lakhmi"]),
        ("Avda. Rio Nalon 58", ["Avda. Rio Nalon 58"]),
        ("Piazzetta Scalette 104", ["Piazzetta Scalette 104"]),
        # numbered streets (US and Indian forms)
        ("meet at 311 E 62nd St, New York", ["311 E 62nd St"]),
        ("I live at 311 East 62nd Street", ["311 East 62nd Street"]),
        ("flat 7, 12 3rd Main Road, Koramangala", ["flat 7, 12 3rd Main Road"]),
        ("we came 2 3rd in the race", []),
        ("book 2 rooms on the 3rd floor", []),
        ("I have av headphones 3", []),
        ("Suite 445\n LOW STREET", ["Suite 445"]),
        ("meet at 3 pm Friday", []),
        # a street's name is no day: "take place on Wednesday 16" is a date
        ("the concert will take place on Wednesday 16 December", []),
        ("it takes place on Friday, 18 at noon", []),
        ("Ci vediamo in Via Roma 12", ["Via Roma 12"]),
        ("vivo en Calle del Mar 5", ["Calle del Mar 5"]),
        ("Avenida Domingo Sarmiento 12", ["Avenida Domingo Sarmiento 12"]),
        ("I walked 3 blocks to the park", []),
        ("During 1971, Acme invested", []),
        ("we need 2 Keys and 3 Locks", []),
        ("the corner of the room and the door.", []),
        ("we have 2 options on the table", []),
        ("see you on 27 November 2026 at 10", []),
        ("am 12. Juni 2026", []),
    ],
)
def test_street_address_recognizer(text: str, expected: list[str]) -> None:
    assert _found(StreetAddressRecognizer(), "STREET_ADDRESS", text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The bus station is on Pod Floriánem 1677", ["Pod Floriánem 1677"]),
        ("Trivo lives on Grössgstötten 50 street.", ["Grössgstötten 50 street"]),
        ("the bus drops you off at 74678 midtvollen 130 st.", ["74678 midtvollen 130 st."]),
        ("The bus station is on Peter Zuidhove 188", ["Peter Zuidhove 188"]),
        ("The restaurant is at 9816 214 Pavlou Drandaki", ["9816 214 Pavlou Drandaki"]),
        # everyday words, towns, times, counts and hours are no streets
        ("meet at Gate 12", []),
        ("on Platform 9", []),
        ("back in Berlin 2026", []),
        ("fly to Lisbon 2 days early", []),
        ("give it to Tom Smith 2 times", []),
        ("Dinner at 8 Priya Patel?", []),
        # a clock shouting in capitals: "3P" + "M" is no house number
        ("STAFF MTG MOVED TO THURS 3PM!!!", []),
        ("Moved to Sunday 10AM", []),
    ],
)
def test_named_street_recognizer(text: str, expected: list[str]) -> None:
    assert _found(NamedStreetRecognizer(), "STREET_ADDRESS", text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ask Dr. Okafor about it", ["Okafor"]),
        ("Frau Schmidt kommt um 3", ["Schmidt"]),
        ("Sra. Gómez llamó", ["Gómez"]),
        ("Mr Tom Baker said", ["Tom Baker"]),
        ("join accounts with ms. Quinzia", ["Quinzia"]),
        ("I miss London", []),
        ("the dr said rest", []),
        ("M. 3 was fine", []),
    ],
)
def test_titled_name_recognizer(text: str, expected: list[str]) -> None:
    assert _found(TitledNameRecognizer(), "PERSON", text) == expected


NAME_ROWS = [
    ("email to karthik about Q3", ["karthik"]),
    ("meet priya tomorrow", ["priya"]),
    ("with Marcela, paty and bebel", ["Marcela", "paty", "bebel"]),
    ("KARTHIK my cfo", ["KARTHIK"]),
    ("karthik who is my cfo", ["karthik"]),
    ("karthik, my cfo", ["karthik"]),
    ("my dentist Okafor", ["Okafor"]),
    ("Hey Priya, thanks", ["Priya"]),
    ("Thanks, Tom", ["Tom"]),
    ("lunch with Will tomorrow", ["Will"]),
    ("Will and Rose are coming", ["Will", "Rose"]),
    ("Hallo Jürgen, treffen wir uns mit Anna?", ["Jürgen", "Anna"]),
    ("Bonjour Marie, on se voit avec Élodie ?", ["Marie", "Élodie"]),
    ("Hola María José, ¿vienes con Paty?", ["María José", "Paty"]),
    ("Oi João, vamos com a Ana?", ["João", "Ana"]),
    ("Talked to Oluwaseun and Nguyễn Văn An", ["Oluwaseun", "Nguyễn Văn An"]),
    ("Best,\nTom", ["Tom"]),
    ("Viele Grüße\nJürgen", ["Jürgen"]),
    ("see you\n— Priya", ["Priya"]),
    ("1:1 Karthik", ["Karthik"]),
    ("Sync w/ Tom re Q3", ["Tom"]),
    # issue 3: answers, dialogue, initials, possessives, sentence subjects, lines of a block
    ("What's your last name? Boyle", ["Boyle"]),
    ("sometimes people call me višeslav", ["višeslav"]),
    ("I'm so jealous! said Maslin", ["Maslin"]),
    ("Julieta S Almeida\nStaff development specialist", ["Julieta S Almeida"]),
    ("Christophe Björklund\nPower distributor", ["Christophe Björklund"]),
    ("eva kleist lives at home", ["eva kleist"]),
    ("Trivo lives on Main St", ["Trivo"]),
    ("Warrane, can I speak to your boss?", ["Warrane"]),
    ("between him and Franciska's kid", ["Franciska"]),
    ("remove my kid Tadzio from the will", ["Tadzio"]),
    ("Tell Priya Q0042x hi", ["Priya"]),
    ("Csanád P Gere lives in town", ["Csanád P Gere"]),
    ("Rościsław Dudek said hi", ["Rościsław Dudek"]),
    ("Can I help?", []),
    ("Blue Bottle is open", []),
    ("bill is due friday", []),
    ("Standard And Poors is an agency", []),
    ("Verdafero is a startup", []),
    # no-match rows: ordinary words in name-like positions stay
    ("I will mark it done", []),
    ("meet tomorrow at Blue Bottle Coffee", []),
    ("with pleasure, call me back", []),
    ("text me, ask the team", []),
    ("with Acme Corp and Google", []),
    ("Q3 planning with the CFO", []),
    ("Note: bring cake", []),
]


@pytest.mark.parametrize(("text", "expected"), NAME_ROWS)
def test_contextual_names(text: str, expected: list[str]) -> None:
    hits = find_names(text, split_thread(text))
    found = sorted({text[h.start : h.end] for h in hits}, key=text.find)
    # a longer hit covering a shorter one counts once ("María José" over "José")
    found = [f for f in found if not any(f != g and f in g for g in found)]
    assert found == expected


# (text, the word to judge, whether grammar says it is no name there)
NO_NAME_ROWS = [
    ("Mark the location as SFO", "Mark", True),
    ("Will do, thanks", "Will", True),
    ("Can I move it?", "Can", True),
    ("Rose to the occasion", "Rose", True),
    ("Uh, meeting at 3", "Uh", True),
    ("Hmmm ok", "Hmmm", True),
    ("Ask the Dermatologist", "Dermatologist", True),
    ("Mark called me", "Mark", False),
    ("ask Will about it", "Will", False),
    ("Rose is coming", "Rose", False),
    ("Dale and White were engineers", "Dale", False),
    ("Tom, the plumber, is late", "Tom", False),
]


@pytest.mark.parametrize(("text", "word", "expected"), NO_NAME_ROWS)
def test_no_name_here(text: str, word: str, expected: bool) -> None:
    start = text.index(word)
    assert no_name_here(text, start, start + len(word)) is expected


@pytest.mark.parametrize(
    ("word", "typo", "role", "brand"),
    [
        ("assitance", True, False, False),
        ("appointmet", True, False, False),
        ("Gynecologist", False, True, False),
        ("Practitioner", False, True, False),
        ("Initech", False, False, True),
        ("Oluwaseun", False, False, False),
        ("Chukwuemeka", False, False, False),
        ("Kleist", False, False, False),
        ("Christ", False, False, False),
    ],
)
def test_word_shapes(word: str, typo: bool, role: bool, brand: bool) -> None:
    assert (is_typo(word), is_role_word(word), has_brand_ending(word)) == (typo, role, brand)
