"""A notice's plain confirmation stays an event when a courtesy line follows it.

A request's "bitte", "merci" or "por favor" named no subject; read as one, it matched the
notice's "Bitte bringen Sie ... mit" and the 08:45 appointment was dropped.
"""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent.direct_call import heard_times
from agent.extraction import ProposedEvent, RuleLinker, candidates
from agent.extraction.title import request_subject
from agent.intent import intent_by_rules
from tools.calendar.times import TimeParser

TZ = "Europe/Berlin"
NOW = datetime(2026, 11, 29, 10, 0, tzinfo=ZoneInfo(TZ))  # Sunday
START = "2026-12-10T08:45:00+01:00"

DE = "Ihr Termin: Donnerstag, 10.12.2026, 08:45 Uhr\n"
EN = "Your appointment: Thursday, 10 Dec 2026, 08:45\n"
FR = "Votre rendez-vous : jeudi 10 décembre 2026 à 08h45\n"
ES = "Su cita: jueves 10 de diciembre de 2026, 08:45\n"
IT = "Il suo appuntamento: giovedì 10 dicembre 2026, ore 08:45\n"
PT = "A sua consulta: quinta-feira, 10/12/2026, 08:45\n"


def link(request: str, thread: str) -> list[ProposedEvent]:
    heard = heard_times(TimeParser(tz=TZ, now=NOW), request, thread)
    found = candidates(request, heard.quiet, heard.mentions)
    linker = RuleLinker(TZ, NOW)
    return linker.link(request, heard.quiet, found, intent=intent_by_rules(request))


@pytest.mark.parametrize(
    ("request_text", "thread"),
    [
        ("eintragen bitte", DE + "Bitte bringen Sie Ihre Versichertenkarte mit."),
        ("eintragen bitte", DE + "Bitte Ausweis mitbringen."),
        ("trag das bitte ein", DE + "Bitte Ausweis mitbringen."),
        ("eintragen danke", DE + "Danke für Ihre Buchung."),
        ("bitte eintragen", DE + "Bitte Ausweis mitbringen."),
        ("eintragen bitte", DE.rstrip("\n")),  # no second line: kept before the fix too
        ("add it pls thanks", EN + "Pls bring your insurance card."),
        ("add it please", EN + "Please bring your insurance card."),
        ("mets-le dans mon agenda merci", FR + "Merci d'apporter votre carte Vitale."),
        ("ajoute ça svp", FR + "Merci d'apporter votre carte Vitale. SVP"),
        ("agenda por favor", ES + "Por favor traiga su tarjeta sanitaria."),
        ("añade eso porfa", ES + "Porfa traiga su tarjeta sanitaria."),
        ("aggiungi grazie", IT + "Grazie di portare la tessera sanitaria."),
        ("aggiungi per favore", IT + "Per favore porti la tessera sanitaria."),
        ("adiciona por favor", PT + "Por favor traga o cartão de cidadão."),
        ("adiciona obrigado", PT + "Obrigado por escolher a nossa clínica."),
    ],
)
def test_courtesy_line_keeps_the_confirmed_time(request_text: str, thread: str) -> None:
    events = link(request_text, thread)
    assert [e.start.isoformat() for e in events if e.start is not None] == [START]


@pytest.mark.parametrize(
    ("request_text", "subject"),
    [
        ("eintragen bitte", []),
        ("adiciona por favor", []),
        ("ajoute ça svp", []),
        ("add it pls thanks", []),
        ("add the design crit please", [["desig", "crit"]]),  # a name is still a name
        ("Zahnarzt eintragen bitte", []),  # the verb comes last: nothing after it names
    ],
)
def test_courtesy_words_name_no_subject(request_text: str, subject: list[list[str]]) -> None:
    assert request_subject(request_text) == subject
