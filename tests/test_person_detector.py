"""The learned PERSON detector (privacy/detector.py), alone and inside the redactor.

The miss classes of issue 15 each have rows, and each table has rows that must stay visible:
venues, firms, services and landmarks next to the same cue words.
"""

from __future__ import annotations

import json

import pytest

from privacy.detector import MANIFEST_FILE, _folder, detector
from privacy.redactor import Redactor


def test_the_shipped_detector_is_the_one_its_manifest_describes() -> None:
    import hashlib

    manifest = json.loads((_folder() / MANIFEST_FILE).read_text(encoding="utf-8"))
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((_folder() / name).read_bytes()).hexdigest() == digest, name
    # The shipped file was still chosen on WNUT-17 dev (docs/privacy.md); `make train-privacy`
    # now chooses on held-out training data, and this line changes with its next artefact.
    assert manifest["data"]["selection"] == "wnut17_dev.jsonl only"
    assert 0 < manifest["threshold"] < 1 and manifest["dev"]["plain_redacted"] <= 0.03
    assert (_folder() / "person-detector.int8.onnx").stat().st_size < 100 * 1024 * 1024


def test_the_shipped_detector_gives_its_manifests_figure_on_the_held_out_sample() -> None:
    """The int8 file as shipped, on the held-out WNUT-17 train posts the manifest scored it on
    (needs ../shared/benchmarks: a missing file stops it with a message, never a skip)."""
    from training.person_detector import runtime_figures, shipped_sample

    manifest = json.loads((_folder() / MANIFEST_FILE).read_text(encoding="utf-8"))
    expected = manifest["shipped_sample"]
    got = runtime_figures(shipped_sample(), manifest["threshold"])
    assert got["people"] == expected["people"] > 0
    for figure in ("person_recall", "plain_redacted", "others_visible"):
        assert got[figure] == pytest.approx(expected[figure], abs=1e-9), figure


def test_word_scores_separate_a_name_from_the_words_around_it() -> None:
    scores = {
        "dinner with sam sometime next week"[s:e]: p
        for s, e, p in detector().word_scores("dinner with sam sometime next week")
    }
    assert scores["sam"] >= detector().threshold > max(scores["dinner"], scores["week"])


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        # lower-case first names after a cue, and lower-case speaker labels
        ("dinner with sam sometime next week", ["sam"]),
        ("ravi: lunch thu?", ["ravi"]),
        ("drinks w/ olivia and ben fri", ["olivia", "ben"]),
        # ALL CAPS in itineraries
        ("PASSENGER: KARTHIK RAO", ["KARTHIK RAO"]),
        # nicknames, double given names (Korean, Indian, Spanish), plural family names
        ("bday drinks for lizzie and bobby tonight", ["lizzie", "bobby"]),
        ("lunch w/ kim min-jun at 1", ["kim min-jun"]),
        ("ask priya lakshmi about the venue", ["priya lakshmi"]),
        ("meet juan carlos at the gate", ["juan carlos"]),
        ("the Okonkwos are coming over saturday", ["Okonkwos"]),
        ("dinner with the okafors on sunday", ["okafors"]),
        ("lunch with ji-woo tomorrow", ["ji-woo"]),
        # a ticket's name element: SURNAME/GIVEN NAMES TITLE
        ("PASSENGER: NGUYEN/VAN AN MR", ["NGUYEN", "VAN AN"]),
        ("NAME: OKAFOR/CHIDI MRS  SEAT 14C", ["OKAFOR", "CHIDI"]),
    ],
)
def test_names_people_type_are_redacted(text: str, hidden: list[str]) -> None:
    redacted = Redactor().redact(text)
    for value in hidden:
        assert value not in redacted.text, (value, redacted.text)


@pytest.mark.parametrize(
    ("text", "visible"),
    [
        ("dinner at olive garden with the team", ["olive garden"]),
        ("meet me at Blue Bottle at 3", ["Blue Bottle"]),
        ("the plumber from Roto-Rooter comes at 9", ["Roto-Rooter"]),
        ("join on Zoom, then lunch at the Marriott", ["Zoom", "Marriott"]),
        ("see you at the Space Needle tomorrow", ["Space Needle"]),
        ("I'll book it through OpenTable", ["OpenTable"]),
        # spaCy reads the chain as a person; the detector's word scores doubt it
        ("Chipotle or Sweetgreen for lunch?", ["Chipotle", "Sweetgreen"]),
        # a route is no ticket name: no title follows it
        ("FLIGHT SFO/LAX DEPARTS 9:05", ["SFO/LAX"]),
        ("vamos ao Museu do Prado amanhã", ["Museu do Prado"]),
        ("early dinner at Magnolia Bakery then home", ["Magnolia Bakery"]),
    ],
)
def test_venues_firms_and_services_stay_visible(text: str, visible: list[str]) -> None:
    redacted = Redactor().redact(text)
    for value in visible:
        assert value in redacted.text, (value, redacted.text)


def test_training_runs_on_a_slice_and_selects_on_held_out_training_data() -> None:
    """The path `make train-privacy` takes, on 64 sentences (needs ../shared/benchmarks: a
    missing file stops it with a message naming the file, never a skip)."""
    from training.person_detector import main

    [epoch] = main(["--smoke"])
    assert epoch["people"] > 0 and 0 <= epoch["person_recall"] <= 1
    assert 0 < epoch["threshold"] < 1
