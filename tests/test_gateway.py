"""The model boundary: every prompt screened by the guard and written to the audit log."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agent.audit import AuditLog
from agent.errors import ModelError, ModelOutputError, ModelUnavailableError
from agent.gateway import ModelGateway
from agent.model import GenerationOptions, Message
from privacy import EntityMap, PrivacyGuard, PrivacyLeakError
from tests.fakes import RecordingChatModel

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def session_map() -> EntityMap:
    known = EntityMap()
    known.placeholder_for("PERSON", "Karthik Raman")
    known.placeholder_for("EMAIL", "karthik@acme.example")
    known.placeholder_for("PHONE", "+1 415 555 0134")
    return known


@pytest.mark.guard_catches
def test_known_values_are_reredacted_before_the_backend_sees_them(
    session_map: EntityMap, tmp_path: Path
) -> None:
    model = RecordingChatModel(['{"ok": true}'])
    audit = AuditLog(tmp_path / "audit.jsonl")
    gateway = ModelGateway(model, audit=audit)
    leaky = "Lunch with KARTHIK raman (karthik@acme.example, +1 415 555 0134) and Priya"
    guard = PrivacyGuard(session_map, contacts=["Priya"])

    gateway.complete([Message("user", leaky)], guard=guard, purpose="test")

    sent = model.received[0][0].content
    for raw in ("karthik", "raman", "acme.example", "555 0134", "Priya"):
        assert raw.lower() not in sent.lower()
    assert sent == "Lunch with <PERSON_1> (<EMAIL_1>, <PHONE_1>) and <PERSON_2>"
    [record] = list(audit.read())
    assert record["prompt"].endswith(sent)
    assert record["reredacted"] == ["<EMAIL_1>", "<PERSON_1>", "<PERSON_2>", "<PHONE_1>"]
    assert "karthik" not in json.dumps(record).lower()


def test_refusing_guard_never_calls_the_backend(session_map: EntityMap, tmp_path: Path) -> None:
    model = RecordingChatModel(["x"])
    gateway = ModelGateway(model, audit=AuditLog(tmp_path / "a.jsonl"))
    guard = PrivacyGuard(session_map, refuse=True)
    with pytest.raises(PrivacyLeakError):
        gateway.complete([Message("user", "call Karthik Raman")], guard=guard, purpose="t")
    assert model.received == []
    assert not (tmp_path / "a.jsonl").exists()


def test_placeholder_inside_longer_placeholder_is_untouched(session_map: EntityMap) -> None:
    for number in range(2, 13):
        session_map.placeholder_for("PERSON", f"Person {number}")
    assert session_map.restore("<PERSON_1> met <PERSON_12>") == "Karthik Raman met Person 12"


def test_every_call_is_audited_with_its_fields(session_map: EntityMap, tmp_path: Path) -> None:
    model = RecordingChatModel(['{"intent": "schedule"}', "plain text"])
    audit = AuditLog(tmp_path / "audit.jsonl")
    gateway = ModelGateway(model, audit=audit)
    guard = PrivacyGuard(session_map)
    schema = {"type": "object", "properties": {"intent": {"type": "string"}}}
    parsed = gateway.complete_json(
        [Message("user", "hi")], guard=guard, purpose="intent", schema=schema, schema_name="intent"
    )
    gateway.complete(
        [Message("system", "s"), Message("user", "u")],
        guard=guard,
        purpose="reply",
        options=GenerationOptions(max_tokens=5),
    )
    assert parsed == {"intent": "schedule"}
    records = list(audit.read())
    assert [r["purpose"] for r in records] == ["intent", "reply"]
    for record in records:
        for key in ("time", "backend", "model", "prompt", "schema_name", "output", "ms"):
            assert key in record
        assert record["completion_tokens"] > 0
    assert records[0]["schema_name"] == "intent"
    assert records[1]["output"] == "plain text"


def test_output_that_is_not_json_is_an_error(session_map: EntityMap) -> None:
    gateway = ModelGateway(RecordingChatModel(['{"truncated": ']))
    with pytest.raises(ModelOutputError):
        gateway.complete_json(
            [Message("user", "x")],
            guard=PrivacyGuard(session_map),
            purpose="p",
            schema={"type": "object"},
            schema_name="s",
        )


def test_no_model_means_unavailable(session_map: EntityMap) -> None:
    gateway = ModelGateway(None)
    assert not gateway.is_available
    with pytest.raises(ModelUnavailableError):
        gateway.complete([Message("user", "x")], guard=PrivacyGuard(session_map), purpose="p")


def test_no_code_calls_a_backend_around_the_gateway() -> None:
    """Only the gateway may call generate(); only backends may touch llama.cpp or HTTP.

    The one exception is training's agreement check, which feeds its own synthetic prompts to
    the PyTorch and llama.cpp copies of the model to compare their tokens: no user text.
    """
    allowed_generate = {ROOT / "agent" / "gateway.py", ROOT / "bench" / "train.py"}
    offenders = []
    for path in ROOT.glob("[a-z]*/**/*.py"):
        if ".venv" in path.parts or path.parts[len(ROOT.parts)] == "tests":
            continue
        text = path.read_text(encoding="utf-8")
        in_backends = "backends" in path.parts
        if re.search(r"\.generate\(", text) and path not in allowed_generate and not in_backends:
            offenders.append(f"{path}: generate(")
        if re.search(r"create_chat_completion|chat/completions", text) and not in_backends:
            offenders.append(f"{path}: direct model call")
    assert offenders == []


class _DownModel(RecordingChatModel):
    """A backend whose server went away: every generation fails."""

    def generate(self, messages, *, options):  # type: ignore[no-untyped-def,override]
        self.received.append(list(messages))
        raise ModelError("connection refused")
        yield  # pragma: no cover


def test_a_model_that_keeps_failing_is_rested_and_not_called() -> None:
    model = _DownModel()
    gateway = ModelGateway(model)
    guard = PrivacyGuard(EntityMap())
    for _ in range(3):
        with pytest.raises(ModelError):
            gateway.complete([Message("user", "hi")], guard=guard, purpose="plan")
    assert not gateway.is_available
    with pytest.raises(ModelUnavailableError):
        gateway.complete([Message("user", "hi")], guard=guard, purpose="plan")
    assert len(model.received) == 3


def test_the_audit_log_reads_one_session_exactly(tmp_path: Path) -> None:
    model = RecordingChatModel(["a", "b", "c", "d"])
    gateway = ModelGateway(model, audit=AuditLog(tmp_path / "audit.jsonl"))
    guard = PrivacyGuard(EntityMap())
    # must not match "ab": a longer id, no session, and a prompt that quotes the marker
    for session, text in (
        ("ab", "first"),
        ("abc", "second"),
        (None, "third"),
        ("cd", 'pasted: "session": "ab" is not a session'),
    ):
        gateway.complete([Message("user", text)], guard=guard, purpose="t", session=session)
    audit = gateway.audit
    assert audit is not None
    assert [r["prompt"] for r in audit.read(session="ab")] == ["[user]\nfirst"]
    assert len(list(audit.read(session="cd"))) == 1
    assert len(list(audit.read())) == 4
