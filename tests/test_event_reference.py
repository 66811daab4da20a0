"""Which event a follow-up is about, as fitted weights (issue 38, step one: record and fit). The
shipped manifest gives its cross-validated figure again from the committed recorded turns, its
features are the ones agent/reference.py computes, and the generated programs' gold says what
each request does."""

from __future__ import annotations

import json
from collections import Counter
from importlib import resources

from agent.reference import FEATURES
from bench.followups import kind
from training.event_reference import OUT, figures_at, generated, out_of_fold


def _manifest() -> dict:
    folder = resources.files("understanding").joinpath("models")
    return json.loads(folder.joinpath("reference.json").read_text(encoding="utf-8"))


def test_the_manifests_cross_validated_figure_comes_back_from_the_recorded_turns() -> None:
    manifest = _manifest()
    assert tuple(manifest["features"]) == FEATURES
    rows = [json.loads(line) for line in OUT.read_text(encoding="utf-8").splitlines()]
    figures = figures_at(out_of_fold(rows), manifest["cut"])
    shipped = manifest["figures"]["cross_validated"]
    assert figures == {k: v for k, v in shipped.items() if k not in ("folds", "grouped_by")}
    # what the cut was chosen for: no more wrong changes than the rules on the same turns
    assert figures["wrong_picks"]["fitted"] <= figures["wrong_picks"]["rules"]


def test_every_generated_program_does_what_its_gold_says() -> None:
    conversations = generated()
    kinds: Counter[str] = Counter()
    for conversation in conversations:
        expects = [t["expect"] for t in conversation["turns"]]
        for before, after in zip([[], *expects], expects, strict=False):
            kinds[kind(before, after)] += 1
    assert len(conversations) >= 150 and len({c["id"] for c in conversations}) == len(conversations)
    assert kinds["create"] >= 200 and kinds["cancel"] >= 30 and kinds["move"] >= 30
    assert kinds["no change"] >= 20 and kinds["other"] == 0
