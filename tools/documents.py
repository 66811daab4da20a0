"""Document tools over the user's documents folder: list, read and summarise .txt .md .pdf .docx.

Everything is read from local disk. A file is trusted only as far as its bytes agree with its
name: a PDF renamed .docx, a picture renamed .txt, an oversized or password-protected file
each get one clear sentence back instead of a parser traceback.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from tools import worker
from tools.base import Tool, ToolContext, ToolResult
from tools.errors import ToolError

NO_FOLDER = "no documents folder configured; start Veil with --docs-dir DIR"
TYPES = {".txt": "text", ".md": "markdown", ".pdf": "pdf", ".docx": "docx"}
MAX_BYTES = 20 * 1024 * 1024
MAX_LIST = 100
READ_SECONDS = 10.0  # wall clock for one PDF or Word file in a parser worker
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
DEFAULT_CHARS = 8_000
# What a file's first bytes say it is, to catch a file whose name lies about its type.
_MAGIC = (
    (b"%PDF-", "a PDF"),
    (b"PK\x03\x04", "a ZIP archive (such as .docx)"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.doc)"),
    (b"{\\rtf", "an RTF file"),
)


class DocumentError(ToolError):
    """A document that cannot be read; the message is the one sentence the user sees."""


def _folder(context: ToolContext) -> Path:
    if context.documents_dir is None:
        raise DocumentError(NO_FOLDER)
    if not context.documents_dir.is_dir():
        raise DocumentError(
            f"the documents folder {context.documents_dir} does not exist; check --docs-dir"
        )
    return context.documents_dir.resolve()


def _sniff(data: bytes) -> str | None:
    for magic, kind in _MAGIC:
        if data.startswith(magic):
            return kind
    return None


def _resolve(root: Path, doc_id: str) -> Path:
    """The file for `doc_id`, refusing anything outside the folder (../, absolute, symlinks)."""
    try:
        path = (root / doc_id).resolve()
        size = path.stat().st_size if path.is_file() else None
    except (OSError, ValueError):  # a NUL byte, a name too long, no permission
        size = path = None
    if path is not None and not path.is_relative_to(root):
        raise DocumentError(f"{doc_id!r} is outside the documents folder; Veil reads only there")
    if path is None or size is None:
        raise DocumentError(f"no document {doc_id!r}; call list_documents to get ids")
    if path.suffix.lower() not in TYPES:
        raise DocumentError(f"{doc_id} is not a .txt, .md, .pdf or .docx file")
    if size > MAX_BYTES:
        limit = MAX_BYTES // 2**20
        raise DocumentError(f"{doc_id} is larger than {limit} MB; Veil will not read it")
    return path


def decode_text(data: bytes) -> tuple[str, str]:
    """Text and the encoding used: UTF-8 (or UTF-16 with a BOM), else Windows-1252 or Latin-1.

    No statistical detection: charset-normalizer reads short Latin-1 text as cp1250 and
    garbles it, while Windows-1252 and Latin-1 are what legacy Western files are. They differ
    only in bytes 0x80-0x9F, so those bytes decide which one to name.
    """
    if data.startswith(_UTF16_BOMS):
        return data.decode("utf-16", "replace"), "utf-16"
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    if any(0x80 <= byte <= 0x9F for byte in data):
        try:
            return data.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D are unassigned in cp1252
            pass
    return data.decode("latin-1"), "latin-1"


def _opens_without_password(reader: Any) -> bool:
    try:
        return bool(reader.decrypt(""))
    except Exception:  # AES without the `cryptography` package, unknown handlers: locked to us
        return False


def _read_pdf(data: bytes, doc_id: str) -> tuple[str, dict[str, Any]]:
    from pypdf import PdfReader

    # pypdf raises many exception types on damaged files; any of them means "cannot read".
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _opens_without_password(reader):
            raise DocumentError(f"{doc_id} is password-protected; save an unlocked copy")
        pages = [page.extract_text() or "" for page in reader.pages]
    except DocumentError:
        raise
    except Exception as exc:
        raise DocumentError(f"{doc_id} is a damaged PDF ({exc.__class__.__name__})") from exc
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text:
        raise DocumentError(f"{doc_id} has no text layer (a scanned PDF?); OCR it first")
    return text, {"pages": len(pages)}


def _read_docx(data: bytes, doc_id: str) -> tuple[str, dict[str, Any]]:
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # zipfile, lxml and python-docx each raise their own types
        raise DocumentError(f"{doc_id} is not a readable Word document") from exc
    # A blank line between paragraphs: a Word paragraph ends a sentence even without a stop.
    blocks = [p.text for p in document.paragraphs]
    for table in document.tables:
        blocks.append("\n".join(" | ".join(cell.text for cell in row.cells) for row in table.rows))
    return "\n\n".join(b for b in blocks if b.strip()), {}


def _bounded(
    reader: Callable[[bytes, str], tuple[str, dict[str, Any]]], data: bytes, doc_id: str
) -> tuple[str, dict[str, Any]]:
    """A PDF or Word reader in the parser pool when one is set (tools/worker.py): pypdf and
    python-docx on a hostile file (a compression bomb, a page tree that loops) are stopped
    at the pool's time and memory limit instead of holding the server (issue 40)."""
    pool = worker.shared_pool()
    if pool is None:
        return reader(data, doc_id)
    try:
        return pool.run(reader, data, doc_id, seconds=READ_SECONDS, what=doc_id)
    except (worker.WorkerLimitError, worker.WorkerCrashError) as error:
        raise DocumentError(str(error)) from None


def read_text(path: Path, doc_id: str) -> tuple[str, dict[str, Any]]:
    """The text of one document and facts about how it was read (encoding, pages)."""
    suffix = path.suffix.lower()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DocumentError(f"cannot read {doc_id}: {exc.strerror}") from exc
    kind = _sniff(data)
    if suffix == ".pdf":
        if b"%PDF-" in data[:1024]:  # readers accept a header anywhere in the first 1 KB
            kind = "a PDF"
        if kind != "a PDF":
            raise DocumentError(f"{doc_id} is named .pdf but holds {kind or 'no PDF data'}")
        return _bounded(_read_pdf, data, doc_id)
    if suffix == ".docx":
        if kind != "a ZIP archive (such as .docx)":
            raise DocumentError(f"{doc_id} is named .docx but holds {kind or 'no Word data'}")
        return _bounded(_read_docx, data, doc_id)
    binary = b"\x00" in data[:8192] and not data.startswith(_UTF16_BOMS)
    if kind is not None or binary:
        raise DocumentError(f"{doc_id} is named {suffix} but holds {kind or 'binary data'}")
    text, encoding = decode_text(data)
    return text, {"encoding": encoding}


def list_documents(args: dict[str, Any], context: ToolContext) -> ToolResult:
    """Readable documents in the folder (hidden ones skipped), so the planner can pick an id."""
    try:
        root = _folder(context)
    except DocumentError as exc:
        return ToolResult.fail(str(exc))
    words = str(args.get("query") or "").casefold().split()
    zone = ZoneInfo(context.tz)
    documents = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.suffix.lower() not in TYPES or any(p.startswith(".") for p in rel.parts):
            continue
        if not path.resolve().is_relative_to(root):  # a symlink out of the folder
            continue
        if not path.is_file() or not all(w in rel.as_posix().casefold() for w in words):
            continue
        stat = path.stat()
        documents.append(
            {
                "id": rel.as_posix(),
                "name": path.name,
                "type": TYPES[path.suffix.lower()],
                "bytes": stat.st_size,
                "modified": datetime.fromtimestamp(stat.st_mtime, zone).isoformat(
                    timespec="seconds"
                ),
            }
        )
    return ToolResult(
        ok=True,
        data={"documents": documents[:MAX_LIST], "total": len(documents)},
    )


def read_document(args: dict[str, Any], context: ToolContext) -> ToolResult:
    """A document's text, capped at max_chars so one file cannot flood the prompt."""
    doc_id = str(args.get("id", ""))
    max_chars = int(args.get("max_chars") or DEFAULT_CHARS)
    try:
        path = _resolve(_folder(context), doc_id)
        text, facts = read_text(path, doc_id)
    except DocumentError as exc:
        return ToolResult.fail(str(exc))
    data = {
        "id": doc_id,
        "name": path.name,
        "type": TYPES[path.suffix.lower()],
        "text": text[:max_chars],
        "chars": len(text),
        "truncated": len(text) > max_chars,
        **facts,
    }
    return ToolResult(ok=True, data=data)


# --- extractive summary -------------------------------------------------------------------

_ABBREVIATIONS = {"mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "inc", "no"}
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
MIN_WORDS = 4  # shorter pieces are headings or list stubs, not summary sentences


def split_sentences(text: str) -> list[str]:
    """Sentences of `text`: split at blank lines and line starts of lists, then at . ! ?"""
    sentences: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*•#]|\d+[.)])\s)", text):
        block = " ".join(block.split()).lstrip("#-*• ").strip()
        start = 0
        for match in _SENTENCE_END.finditer(block):
            last = block[start : match.start()].rsplit(None, 1)[-1:]
            if last and last[0].rstrip(".").casefold() in _ABBREVIATIONS:
                continue  # "Dr. Patel" is not a sentence end
            sentences.append(block[start : match.start()].strip())
            start = match.end()
        sentences.append(block[start:].strip())
    return [s for s in sentences if s]


def _is_content(word: str) -> bool:
    """Not one of English's most frequent (function) words: wordfreq Zipf below 6."""
    from lang.frequency import zipf

    return len(word) > 2 and zipf(word) < 6.0


def summarize(text: str, count: int) -> list[str]:
    """The `count` sentences densest in the document's frequent content words, in order."""
    sentences = split_sentences(text)
    words = [[w.casefold() for w in _WORD.findall(s)] for s in sentences]
    frequency = Counter(w for ws in words for w in ws if _is_content(w))
    if not frequency:
        return sentences[:count]
    top = max(frequency.values())

    def score(index: int) -> float:
        # Mean weight per word, so a long sentence does not win on length alone.
        return sum(frequency[w] / top for w in words[index]) / len(words[index])

    candidates = [i for i, ws in enumerate(words) if len(ws) >= MIN_WORDS]
    candidates = candidates or [i for i, ws in enumerate(words) if ws]
    best = sorted(candidates, key=lambda i: (-score(i), i))[:count]
    return [sentences[i] for i in sorted(best)]


def summarize_document(args: dict[str, Any], context: ToolContext) -> ToolResult:
    """An extractive summary made in code: no model can invent a sentence the file lacks."""
    doc_id = str(args.get("id", ""))
    count = int(args.get("sentences") or 5)
    try:
        path = _resolve(_folder(context), doc_id)
        text, _ = read_text(path, doc_id)
    except DocumentError as exc:
        return ToolResult.fail(str(exc))
    summary = summarize(text, count)
    if not summary:
        return ToolResult.fail(f"{doc_id} holds no text to summarise")
    return ToolResult(
        ok=True,
        data={
            "id": doc_id,
            "name": path.name,
            "summary": summary,
            "words": len(_WORD.findall(text)),
            "sentences_total": len(split_sentences(text)),
        },
    )


_ID = {"type": "string", "minLength": 1, "description": "a path from list_documents"}

TOOLS: tuple[Tool, ...] = (
    Tool(
        name="list_documents",
        description="List the user's documents (.txt .md .pdf .docx); query: words in the path.",
        parameters={
            "type": "object",
            "properties": {"query": {"type": "string"}},
            "required": [],
            "additionalProperties": False,
        },
        run=list_documents,
    ),
    Tool(
        name="read_document",
        description="Read the text of one document by the id list_documents gave.",
        parameters={
            "type": "object",
            "properties": {
                "id": _ID,
                "max_chars": {"type": "integer", "minimum": 200, "maximum": 50_000},
            },
            "required": ["id"],
            "additionalProperties": False,
        },
        run=read_document,
    ),
    Tool(
        name="summarize_document",
        description="Summarise one document: its key sentences, in order, and its word count.",
        parameters={
            "type": "object",
            "properties": {
                "id": _ID,
                "sentences": {"type": "integer", "minimum": 1, "maximum": 20},
            },
            "required": ["id"],
            "additionalProperties": False,
        },
        run=summarize_document,
    ),
)
