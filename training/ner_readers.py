"""Readers of the NER corpora that training/ner_sources.py converts: one per corpus format.

Each reader takes a fetched snapshot (a bare git directory) and the paths in it to read, and
yields one Sentence per sentence: its text, (type, start, end) character spans with Veil's
WNUT-17 types, language, genre and the path it came from. A reader yields None for a sentence
it drops on purpose (a person mention it cannot classify, a text that does not rebuild), so the
conversion report can count them.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Sentence:
    """One converted sentence before sampling: text, (type, start, end) spans, provenance."""

    text: str
    spans: list[tuple[str, int, int]]
    lang: str
    genre: str
    path: str


# ------------------------------------------------------------------ snapshots


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(repo), *args], check=True, capture_output=True
    ).stdout


def commit_of(repo: Path) -> str:
    """The snapshot's commit."""
    return _git(repo, "rev-parse", "HEAD").decode().strip()


def show(repo: Path, path: str) -> str:
    """One file of the snapshot as text."""
    return _git(repo, "show", f"HEAD:{path}").decode("utf-8")


def listing(repo: Path, folder: str) -> list[str]:
    """The files under a folder of the snapshot."""
    return _git(repo, "ls-tree", "-r", "--name-only", "HEAD", folder).decode().split("\n")[:-1]


# ------------------------------------------------------------------ tokens to text

_NO_SPACE_BEFORE = {",", ".", "!", "?", ";", ":", ")", "]", "}", "%", "...", "…", "»"}
_CLITIC = re.compile(r"^(?:'|’)(?:s|re|ve|ll|d|m)$|^n[’']t$", re.IGNORECASE)
_NO_SPACE_AFTER = {"(", "[", "{", "¿", "¡", "«", "$"}
_ELIDED = re.compile(r"^(?:[ldjnmtsc]|qu|dell|dall|all|nell|sull|un)['’]$", re.IGNORECASE)


def detokenise(
    tokens: Sequence[str], glued: frozenset[int] = frozenset()
) -> tuple[str, list[tuple[int, int]]]:
    """Join tokens as they are written and return each token's character offsets; a token in
    `glued` sticks to both neighbours."""
    parts: list[str] = []
    offsets = []
    position = 0
    quote_open = False
    glue_next = True  # no space before the first token
    for index, token in enumerate(tokens):
        glue = glue_next or token in _NO_SPACE_BEFORE or bool(_CLITIC.match(token))
        glue_next = token in _NO_SPACE_AFTER or bool(_ELIDED.match(token))
        if index in glued:
            glue = glue_next = True
        if token == '"':
            # straight quotes alternate: an opening one sticks to the next word, a closing one
            # to the previous
            glue, glue_next = (glue, True) if not quote_open else (True, False)
            quote_open = not quote_open
        if not glue:
            parts.append(" ")
            position += 1
        offsets.append((position, position + len(token)))
        parts.append(token)
        position += len(token)
    return "".join(parts), offsets


def bio_spans(tags: Sequence[str]) -> list[tuple[str, int, int]]:
    """(label, first, last + 1) token spans from BIO or IO tags; a B- always starts a new one."""
    spans: list[tuple[str, int, int]] = []
    label, start = "", -1
    for index, tag in enumerate([*tags, "O"]):
        prefix, _, kind = tag.partition("-")
        continues = prefix == "I" and kind == label
        if label and not continues:
            spans.append((label, start, index))
            label = ""
        if prefix in ("B", "I") and kind and not continues:
            label, start = kind, index
    return spans


def from_tokens(
    tokens: Sequence[str], spans: Iterable[tuple[str, int, int]], lang: str, genre: str, path: str
) -> Sentence:
    """A Sentence from tokens and (type, first, last + 1) token spans; a hyphen or slash inside
    a name joins its neighbours ("Flynn - Scott" was "Flynn-Scott")."""
    spans = list(spans)
    glued = frozenset(
        i for _, a, b in spans for i in range(a + 1, b - 1) if tokens[i] in ("-", "/")
    )
    text, offsets = detokenise(tokens, glued)
    chars = [(kind, offsets[a][0], offsets[b - 1][1]) for kind, a, b in spans]
    return Sentence(text, chars, lang, genre, path)


# ------------------------------------------------------------------ e-mail: CEREC seed corpus

# Enron threads with coreference mentions of people, including pronouns and e-mail addresses.
# Only mentions that are clearly names become person spans; a sentence with a person mention
# that is neither a name nor plainly descriptive ("college football fans", "brian levine") is
# dropped rather than taught as plain words.
_PRONOUNS = frozenset(
    "i me my mine myself you your yours yourself yourselves we us our ours ourselves he him his "
    "himself she her hers herself they them their theirs themselves it its u ya y'all ya'll".split()
)
_DESCRIPTIVE = frozenset(
    "a an the this that these those all any both each every one some someone anyone everyone "
    "other others another additional".split()
)
_PARTICLES = frozenset("de la del da das dos di du le van von der den ter bin al el y".split())
_ORG_WORDS = frozenset("group team committee department inc corp company association".split())


def email_mention(words: Sequence[str]) -> str:
    """`name`, `plain` (a pronoun or a description) or `unsure` for one person mention."""
    alpha = [w for w in words if re.match(r"\w", w)]
    lower = [w.lower() for w in alpha]
    if not alpha or "@" in "".join(words) or all(w in _PRONOUNS for w in lower):
        return "plain"
    if lower[0] in _DESCRIPTIVE or lower[0] in _PRONOUNS or _ORG_WORDS & set(lower):
        return "plain"
    capitalised = all(
        w[0].isupper() or (i and w.lower() in _PARTICLES) for i, w in enumerate(alpha)
    )
    return "name" if capitalised and len(alpha) <= 5 else "unsure"


def read_cerec(repo: Path, paths: Sequence[str]) -> Iterator[Sentence | None]:
    for path in sorted(listing(repo, paths[0])):
        rows = [line.split("\t") for line in show(repo, path).split("\n")]
        sentence: list[list[str]] = []
        for row in [*rows, [""]]:
            if len(row) >= 3 and not row[0].startswith("#"):
                sentence.append(row)
                continue
            if sentence:
                yield _cerec_sentence(sentence, path)
            sentence = []


def _cerec_sentence(rows: list[list[str]], path: str) -> Sentence | None:
    tokens = [row[0] for row in rows]
    open_at: dict[str, list[int]] = {}
    spans = []
    for index, row in enumerate(rows):
        for kind, chain, closing in re.findall(r"\(([POLD])(\d+)\*?(\))?", row[2]):
            if closing:
                spans.append((kind, index, index + 1))
            else:
                open_at.setdefault(kind + chain, []).append(index)
        for kind, chain in re.findall(r"(?<!\()([POLD])(\d+)\*?\)", row[2]):
            starts = open_at.get(kind + chain)
            if starts:
                spans.append((kind, starts.pop(), index + 1))
    kept = []
    for kind, start, end in spans:
        words = tokens[start:end]
        verdict = email_mention(words)
        if kind == "P" and verdict == "unsure":
            return None
        if verdict == "name" and kind in "POL":
            kept.append(({"P": "person", "O": "group", "L": "location"}[kind], start, end))
    return from_tokens(tokens, _outermost(kept), "en", "email", path)


def _outermost(spans: Iterable[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Spans with no overlap: the longest first, then the earliest."""
    kept: list[tuple[str, int, int]] = []
    for span in sorted(set(spans), key=lambda s: (s[1] - s[2], s[1])):
        if all(span[2] <= other[1] or other[2] <= span[1] for other in kept):
            kept.append(span)
    return sorted(kept, key=lambda s: s[1])


# ------------------------------------------------------------------ GUM

# GUM annotates every mention (pronouns and descriptions too) with an entity type, in nested
# brackets in the MISC column. A named person is the proper-noun head of a person mention with
# its `flat` parts; a title attached as `compound` ("Attorney Robert Sarvis") stays outside.
# Where the head is a common noun ("reporter William Saturn"), the run of proper nouns in the
# mention that no other entity claims is the name, less any title words it starts with.
GUM_GENRES = ("academic", "bio", "conversation", "court", "interview", "news", "speech")
GUM_GENRES += ("textbook", "vlog", "voyage")  # the rest are NC-licensed or (reddit) text-less
_TITLES = frozenset(
    "mr mr. mrs mrs. ms ms. miss dr dr. sir madam lord lady king queen prince princess president "
    "governor senator mayor judge justice attorney general captain coach professor prof. doctor "
    "saint st. pope reverend father mother mom mum dad mommy daddy grandma grandpa uncle aunt god "
    "officer sergeant detective chief minister chancellor emperor pharaoh sultan".split()
)
_ENTITY_MARK = re.compile(r"\((\d+)-([a-z]+)[^()]*?(\))?(?=\(|\d+\)|$)|(\d+)\)")


def read_gum(repo: Path, paths: Sequence[str]) -> Iterator[Sentence | None]:
    held = set()  # documents splits.md lists under dev, test or test2
    for section in show(repo, "splits.md").split("\n## ")[1:]:
        if section.split("\n", 1)[0].strip() != "train":
            held |= set(re.findall(r"GUM_[a-z]+_[A-Za-z0-9_]+", section))
    for path in sorted(listing(repo, paths[0])):
        document = Path(path).stem
        genre = document.split("_")[1] if document.startswith("GUM_") else ""
        if genre not in GUM_GENRES or document in held:
            continue
        for block in show(repo, path).split("\n\n"):
            if block.strip():
                yield _gum_sentence(block, genre, path)


def _gum_sentence(block: str, genre: str, path: str) -> Sentence | None:
    words: dict[int, list[str]] = {}
    offsets: dict[int, tuple[int, int]] = {}
    text, expected, pending = "", None, 0
    parts: list[int] = []
    unit = (0, 0)
    for line in block.split("\n"):
        if line.startswith("# text = "):
            expected = line[len("# text = ") :]
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if "." in cols[0]:
            continue
        if "-" in cols[0]:  # a multi-word token: its surface form holds its words
            start, pending = len(text), int(cols[0].split("-")[1])
            text += cols[1] + ("" if "SpaceAfter=No" in cols[9] else " ")
            parts, unit = [], (start, start + len(cols[1]))
            continue
        index = int(cols[0])
        words[index] = cols
        if pending >= index:
            parts.append(index)
            if index == pending:
                forms = "".join(words[i][1] for i in parts)
                at = unit[0]
                for i in parts:
                    span = (at, at + len(words[i][1])) if forms == text[unit[0] : unit[1]] else unit
                    offsets[i], at = span, span[1]
            continue
        offsets[index] = (len(text), len(text) + len(cols[1]))
        text += cols[1] + ("" if "SpaceAfter=No" in cols[9] else " ")
    text = text.rstrip(" ")
    if not words or (expected is not None and text != expected):
        return None
    spans = [
        ("person", offsets[a][0], offsets[b][1])
        for a, b in _gum_names(words)
        if any(c.isalpha() for c in text[offsets[a][0] : offsets[b][1]])
    ]
    return Sentence(text, _outermost(spans), "en", genre, path)


def _gum_mentions(words: dict[int, list[str]]) -> list[tuple[str, int, int]]:
    """(entity type, first word, last word) for every bracketed mention in the sentence."""
    stack: dict[str, list[tuple[str, int]]] = {}
    mentions = []
    for index, cols in words.items():
        value = next((m[7:] for m in cols[9].split("|") if m.startswith("Entity=")), "")
        for eid, kind, closes, closing_id in _ENTITY_MARK.findall(value):
            if eid:
                if closes:
                    mentions.append((kind, index, index))
                else:
                    stack.setdefault(eid, []).append((kind, index))
            elif stack.get(closing_id):
                kind_open, start = stack[closing_id].pop()
                mentions.append((kind_open, start, index))
    return mentions


def _gum_names(words: dict[int, list[str]]) -> list[tuple[int, int]]:
    mentions = _gum_mentions(words)
    names = []
    for kind, start, end in mentions:
        if kind != "person":
            continue
        inside = set(range(start, end + 1))
        heads = [i for i in sorted(inside) if int(words[i][6]) not in inside]
        head = heads[0] if heads else start
        if words[head][4] == "NNPS" and start == end:
            continue  # "Texans", "the Bernoullis": people, but no one's name
        if words[head][3] == "PROPN":
            name = {head}
            for i in sorted(inside):  # flat parts hang off the head or off each other
                if words[i][7].startswith("flat") and int(words[i][6]) in name:
                    name.add(i)
            run = list(range(min(name), max(name) + 1))
        else:
            claimed = {
                i
                for k, a, b in mentions
                if k != "person" and start <= a <= b <= end
                for i in range(a, b + 1)
            }
            runs, current = [], []
            for i in range(start, end + 1):
                if words[i][3] == "PROPN" and i not in claimed:
                    current.append(i)
                else:
                    runs, current = runs + [current] * bool(current), []
            runs += [current] * bool(current)
            run = runs[-1] if runs else []
            while run and words[run[0]][1].lower().rstrip("s") in _TITLES:
                run = run[1:]
        if run and not all(words[i][1].lower().rstrip("s") in _TITLES for i in run):
            names.append((run[0], run[-1]))
    return names


# ------------------------------------------------------------------ CoNLL-style token files

_CONLL_TYPES = {"PER": "person", "LOC": "location", "ORG": "group", "MISC": "other", "OTH": "other"}


def _typed(spans: Iterable[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    return [(_CONLL_TYPES[k], a, b) for k, a, b in spans if k in _CONLL_TYPES]


def read_btc(repo: Path, paths: Sequence[str]) -> Iterator[Sentence | None]:
    # The CoNLL export splits "@user" and "#tag" in two, often with the tag on both halves;
    # they are joined again. BTC labels @-mentions of people PER, WNUT-17 leaves handles
    # unlabelled, so a handle is typed `other` (a trainer can still tell it by its "@").
    for block in show(repo, paths[0]).split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n")]
        tokens: list[str] = []
        tags: list[str] = []
        for row in rows:
            if len(row) != 2 or not row[0].strip():
                continue
            token, tag = row[0].strip(), row[1].strip()
            if tokens and tokens[-1] in ("@", "#") and token[0].isalnum():
                tokens[-1] += token
                tags[-1] = tag if tag != "O" else tags[-1].replace("I-", "B-")
                continue
            tokens.append(token)
            tags.append(tag)
        if not tokens:
            continue
        spans = [
            ("other" if tokens[a].startswith("@") else kind, a, b)
            for kind, a, b in _typed(bio_spans(tags))
        ]
        yield from_tokens(tokens, spans, "en", "social", paths[0])


# Bosque's UNER text line spells contractions out ("de os eleitores"); they are written again
# as Portuguese writes them ("dos eleitores") where neither word is part of an entity.
_PT_CONTRACTIONS = {
    ("de", "o"): "do", ("de", "a"): "da", ("de", "os"): "dos", ("de", "as"): "das",
    ("em", "o"): "no", ("em", "a"): "na", ("em", "os"): "nos", ("em", "as"): "nas",
    ("a", "o"): "ao", ("a", "os"): "aos", ("a", "a"): "à", ("a", "as"): "às",
    ("por", "o"): "pelo", ("por", "a"): "pela", ("por", "os"): "pelos", ("por", "as"): "pelas",
    ("de", "ele"): "dele", ("de", "ela"): "dela", ("de", "eles"): "deles", ("de", "elas"): "delas",
    ("de", "este"): "deste", ("de", "esta"): "desta", ("de", "esse"): "desse",
    ("de", "essa"): "dessa", ("em", "este"): "neste", ("em", "esta"): "nesta",
    ("em", "esse"): "nesse", ("em", "essa"): "nessa", ("de", "isso"): "disso",
    ("de", "isto"): "disto", ("em", "isso"): "nisso",
}  # fmt: skip


def read_uner(repo: Path, paths: Sequence[str]) -> Iterator[Sentence | None]:
    for block in show(repo, paths[0]).split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n") if line and line[0] != "#"]
        if not rows:
            continue
        tokens, tags = [row[1] for row in rows], [row[2] for row in rows]
        merged_tokens: list[str] = []
        merged_tags: list[str] = []
        for token, tag in zip(tokens, tags, strict=True):
            pair = (merged_tokens[-1].lower(), token.lower()) if merged_tokens else None
            # not across an entity's edge: "de O Globo" keeps its article
            if pair in _PT_CONTRACTIONS and (
                (tag == "O" and merged_tags[-1] == "O") or tag.startswith("I-")
            ):
                word = _PT_CONTRACTIONS[pair]
                merged_tokens[-1] = word.capitalize() if merged_tokens[-1][0].isupper() else word
                continue
            merged_tokens.append(token)
            merged_tags.append(tag)
        spans = _typed(bio_spans(merged_tags))
        yield from_tokens(merged_tokens, spans, "pt", "news", paths[0])


def read_europeana(repo: Path, paths: Sequence[str]) -> Iterator[Sentence | None]:
    # OCR'd historic newspapers with no sentence breaks: a sentence ends at . ! ? before a
    # capital, or after 40 tokens, never inside an entity. Only the first 80 % of each file is
    # read, since published splits of these files (Riedl & Padó 2018) take dev and test from
    # the end.
    for path in paths:
        lang = Path(path).name[4:6].lower()  # enp_DE.lft.bio
        rows = [line.rsplit(" ", 1) for line in show(repo, path).split("\n")]
        rows = [row for row in rows if len(row) == 2 and row[0].strip() and row[0][0] != "#"]
        rows = rows[: len(rows) * 4 // 5]
        tokens, tags = [r[0].strip() for r in rows], [r[1].strip() for r in rows]
        start = 0
        for index in range(len(tokens)):
            after = tags[index + 1] if index + 1 < len(tokens) else "O"
            ends = tokens[index] in (".", "!", "?") and (
                index + 1 == len(tokens) or tokens[index + 1][:1].isupper()
            )
            if (ends or index - start >= 40) and not after.startswith("I-"):
                chunk = slice(start, index + 1)
                spans = _typed(bio_spans(tags[chunk]))
                yield from_tokens(tokens[chunk], spans, lang, "historic-news", path)
                start = index + 1


# ------------------------------------------------------------------ brat: MEDDOCAN

_MEDDOCAN_TYPES = {
    "NOMBRE_SUJETO_ASISTENCIA": "person",
    "NOMBRE_PERSONAL_SANITARIO": "person",
    "CALLE": "location",
    "TERRITORIO": "location",
    "PAIS": "location",
    "HOSPITAL": "group",
    "INSTITUCION": "group",
    "CENTRO_SALUD": "group",
}
_SENTENCE_END = re.compile(r"(?<=\w{4}[.!?])\s+(?=[A-ZÁÉÍÓÚÑ¿¡])")


def read_meddocan(repo: Path, paths: Sequence[str]) -> Iterator[Sentence | None]:
    # synthetic clinical cases: a header of form fields (name, address, doctor) and a report;
    # the names and addresses were written in by the annotators. Lines are split into
    # sentences after a word of four letters or more, so "Dra. Ana Ruiz" stays whole.
    for path in sorted(p for p in listing(repo, paths[0]) if p.endswith(".txt")):
        text = show(repo, path)
        spans = []
        for line in show(repo, path[:-4] + ".ann").split("\n"):
            fields = line.split("\t")
            if len(fields) == 3 and fields[0].startswith("T") and ";" not in fields[1]:
                kind, start, end = fields[1].split(" ")
                if kind in _MEDDOCAN_TYPES and text[int(start) : int(end)] == fields[2]:
                    spans.append((_MEDDOCAN_TYPES[kind], int(start), int(end)))
        cuts = [0]
        for match in re.finditer(r"\n+|" + _SENTENCE_END.pattern, text):
            if not any(a < match.start() < b for _, a, b in spans):
                cuts += [match.start(), match.end()]
        cuts.append(len(text))
        for a, b in zip(cuts[::2], cuts[1::2], strict=True):
            piece = text[a:b]
            lead = len(piece) - len(piece.lstrip())
            piece = piece.strip()
            inner = [(k, s - a - lead, e - a - lead) for k, s, e in spans if a <= s and e <= b]
            if piece:
                yield Sentence(piece, inner, "es", "clinical", path)
