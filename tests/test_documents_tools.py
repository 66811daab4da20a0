"""Document tools on real .txt, .md, .pdf and .docx files written in tmp_path."""

from __future__ import annotations

import io
import os
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import docx
import jsonschema
import pytest
from pypdf import PdfWriter
from sqlite_utils import Database

from memory.calendar import CalendarStore
from tools.base import ToolContext, ToolResult
from tools.documents import MAX_BYTES, NO_FOLDER, TOOLS, split_sentences

NOW = datetime(2024, 5, 6, 9, 30, tzinfo=ZoneInfo("Europe/Berlin"))
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def make_pdf(lines: list[str]) -> bytes:
    """A minimal valid one-page PDF with a Helvetica text stream (pypdf cannot write text)."""
    text = " ".join(
        "(" + line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") Tj T*"
        for line in lines
    )
    stream = f"BT /F1 12 Tf 14 TL 72 720 Td {text} ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def make_docx(paragraphs: list[str], table: list[list[str]] | None = None) -> bytes:
    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def blank_pdf(password: str | None = None) -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    if password:
        writer.encrypt(password, algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    (folder / "plans").mkdir(parents=True)
    (folder / ".private").mkdir()
    (folder / "notes.txt").write_text("Buy oat milk.\nCall the plumber on Friday.\n")
    (folder / "plans" / "garden.md").write_text("# Garden\n\nPlant tomatoes in May.\n")
    (folder / "report.pdf").write_bytes(make_pdf(["Quarterly budget review", "Costs fell 4%."]))
    (folder / "letter.docx").write_bytes(
        make_docx(["Dear Ana,", "The lease ends in June."], [["Room", "Rent"], ["A", "900"]])
    )
    (folder / ".private" / "diary.txt").write_text("secret")
    (folder / "photo.png").write_bytes(PNG)
    return folder


def make_context(tmp_path: Path, docs_dir: Path | None) -> ToolContext:
    return ToolContext(
        tz="Europe/Berlin",
        now=NOW,
        out_dir=tmp_path / "out",
        calendar=CalendarStore(Database(tmp_path / "veil.db")),
        documents_dir=docs_dir,
    )


@pytest.fixture
def context(tmp_path: Path, docs_dir: Path) -> ToolContext:
    return make_context(tmp_path, docs_dir)


def run(name: str, args: dict[str, Any], context: ToolContext) -> ToolResult:
    """Run a tool the way the executor does: arguments checked against its schema first."""
    tool = {t.name: t for t in TOOLS}[name]
    jsonschema.validate(args, tool.parameters)
    return tool.run(args, context)


def read(context: ToolContext, doc_id: str, **args: Any) -> ToolResult:
    return run("read_document", {"id": doc_id, **args}, context)


def test_schemas_are_valid_and_descriptions_short() -> None:
    assert [t.name for t in TOOLS] == ["list_documents", "read_document", "summarize_document"]
    for tool in TOOLS:
        jsonschema.Draft202012Validator.check_schema(tool.parameters)
        assert tool.parameters["additionalProperties"] is False
        assert 0 < len(tool.description) <= 120 and not tool.writes


def test_list_documents_skips_hidden_and_other_types(context: ToolContext) -> None:
    result = run("list_documents", {}, context)
    assert result.ok, result.error
    documents = result.data["documents"]
    assert [d["id"] for d in documents] == [
        "letter.docx",
        "notes.txt",
        "plans/garden.md",
        "report.pdf",
    ]
    garden = documents[2]
    assert garden["name"] == "garden.md" and garden["type"] == "markdown"
    assert garden["bytes"] == len("# Garden\n\nPlant tomatoes in May.\n")
    assert datetime.fromisoformat(garden["modified"]).utcoffset() is not None
    found = run("list_documents", {"query": "PLANS"}, context).data["documents"]
    assert [d["id"] for d in found] == ["plans/garden.md"]


def test_read_each_format(context: ToolContext) -> None:
    text = read(context, "notes.txt")
    assert text.data["text"].startswith("Buy oat milk.") and text.data["encoding"] == "utf-8"
    pdf = read(context, "report.pdf")
    assert pdf.ok, pdf.error
    assert pdf.data["text"] == "Quarterly budget review\nCosts fell 4%." and pdf.data["pages"] == 1
    letter = read(context, "letter.docx")
    assert letter.ok, letter.error
    assert letter.data["text"] == "Dear Ana,\n\nThe lease ends in June.\n\nRoom | Rent\nA | 900"
    assert read(context, "plans/garden.md").data["type"] == "markdown"


def test_read_caps_text_at_max_chars(context: ToolContext, docs_dir: Path) -> None:
    (docs_dir / "long.txt").write_text("word " * 2000)
    result = read(context, "long.txt", max_chars=500)
    assert len(result.data["text"]) == 500
    assert result.data["chars"] == 10_000 and result.data["truncated"] is True
    assert len(read(context, "long.txt").data["text"]) == 8_000  # the default cap


@pytest.mark.parametrize(
    ("raw", "encoding", "text"),
    [
        ("Café crème à Zürich, señor".encode("latin-1"), "latin-1", "Café crème à Zürich, señor"),
        ("“Quotes” cost 5 €".encode("cp1252"), "cp1252", "“Quotes” cost 5 €"),
        ("\ufeffBOM and ünïcode".encode(), "utf-8", "BOM and ünïcode"),
        ("Grüße".encode("utf-16"), "utf-16", "Grüße"),
    ],
)
def test_legacy_encodings_are_named(
    context: ToolContext, docs_dir: Path, raw: bytes, encoding: str, text: str
) -> None:
    (docs_dir / "old.txt").write_bytes(raw)
    result = read(context, "old.txt")
    assert result.ok, result.error
    assert (result.data["text"], result.data["encoding"]) == (text, encoding)


def test_missing_folder_says_how_to_fix(tmp_path: Path) -> None:
    assert run("list_documents", {}, make_context(tmp_path, None)).error == NO_FOLDER
    result = read(make_context(tmp_path, tmp_path / "nowhere"), "notes.txt")
    assert not result.ok and "--docs-dir" in (result.error or "")


def test_path_traversal_is_refused(context: ToolContext, tmp_path: Path, docs_dir: Path) -> None:
    (tmp_path / "outside.txt").write_text("not yours")
    os.symlink(tmp_path / "outside.txt", docs_dir / "link.txt")
    for doc_id in ("../outside.txt", str(tmp_path / "outside.txt"), "link.txt", "plans/../../x"):
        result = read(context, doc_id)
        assert not result.ok and "outside the documents folder" in (result.error or ""), doc_id
    assert "link.txt" not in [d["id"] for d in run("list_documents", {}, context).data["documents"]]
    for doc_id in ("nope.txt", "bad\x00name.txt", "x" * 5000 + ".txt"):
        missing = read(context, doc_id)
        assert not missing.ok and "list_documents" in (missing.error or ""), doc_id


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [
        ("scan.pdf", PNG, "is named .pdf but holds a PNG image"),
        ("letter2.docx", make_pdf(["hi"]), "is named .docx but holds a PDF"),
        ("readme.txt", make_pdf(["hi"]), "is named .txt but holds a PDF"),
        ("notes.md", b"\x00\x01\x02binary", "is named .md but holds binary data"),
        ("fake.docx", b"plain words", "is named .docx but holds no Word data"),
        ("broken.pdf", b"%PDF-1.4\nnot really a pdf", "damaged PDF"),
        ("scanned.pdf", blank_pdf(), "no text layer"),
        ("locked.pdf", blank_pdf("secret"), "password-protected"),
        ("zip.docx", b"PK\x03\x04" + b"\x00" * 40, "not a readable Word document"),
    ],
)
def test_files_that_lie_about_their_type_fail_clearly(
    context: ToolContext, docs_dir: Path, name: str, content: bytes, says: str
) -> None:
    (docs_dir / name).write_bytes(content)
    for tool in ("read_document", "summarize_document"):
        result = run(tool, {"id": name}, context)
        assert not result.ok and says in (result.error or ""), result.error


def test_oversize_files_are_refused(context: ToolContext, docs_dir: Path) -> None:
    with (docs_dir / "huge.txt").open("wb") as handle:
        handle.truncate(MAX_BYTES + 1)  # sparse: costs no disk
    result = read(context, "huge.txt")
    assert not result.ok and "larger than 20 MB" in (result.error or "")


def test_split_sentences_keeps_abbreviations_and_lists() -> None:
    text = "# Plan\n\nDr. Patel arrives at 9. She leaves at noon!\n- Bring maps\n- Bring food"
    assert split_sentences(text) == [
        "Plan",
        "Dr. Patel arrives at 9.",
        "She leaves at noon!",
        "Bring maps",
        "Bring food",
    ]


def test_summary_picks_the_key_sentences_in_document_order(
    context: ToolContext, docs_dir: Path
) -> None:
    sentences = [
        "The garden budget review covers the spring planting costs.",
        "Lunch was served at noon in the old hall downstairs.",
        "The garden budget grew because the garden needs new tools.",
        "Someone mentioned a parade happening across town yesterday.",
        "The final garden budget review approves the garden budget.",
        "Parking near the station remains difficult on weekdays.",
    ]
    (docs_dir / "minutes.txt").write_text(" ".join(sentences))
    result = run("summarize_document", {"id": "minutes.txt", "sentences": 3}, context)
    assert result.ok, result.error
    # The last sentence scores highest, yet the summary keeps the document's order.
    assert result.data["summary"] == [sentences[0], sentences[2], sentences[4]]
    assert result.data["words"] == sum(len(s.split()) for s in sentences)
    assert result.data["sentences_total"] == 6


def test_summary_of_a_docx_and_a_short_file(context: ToolContext) -> None:
    result = run("summarize_document", {"id": "letter.docx"}, context)
    assert result.ok, result.error
    assert result.data["summary"] == ["The lease ends in June."]
    short = run("summarize_document", {"id": "plans/garden.md", "sentences": 5}, context)
    assert short.data["summary"] == ["Plant tomatoes in May."]
