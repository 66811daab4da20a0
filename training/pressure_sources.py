"""Convert a public corpus of unwanted messages into examples for the pressure head.

The pressure head (`training/pressure_head.py`) reads a message another person wrote and asks
whether it pushes the user into a time (a booking made for them, "no need to reply", a threat
if they do not add it) rather than stating or asking one. Generated templates teach the
scheduling cases in seven languages; this corpus is real text nobody here wrote, so it grounds
the head's sense of pressure in messages people actually received, and its sealed split
measures it.

Source (data only, read from a `fetch` snapshot; each record keeps its `source`):
- SMS Spam Collection v.1 (Almeida, Gómez Hidalgo and Yamakami, 2011; UCI Machine Learning
  Repository, CC BY 4.0), as mirrored in hamzaaacodes/sms-spam-collection @ f3e73e1: 5,574
  English text messages, `spam` (unsolicited offers, prize and account scams pressing for a
  call or a reply now) read as `pressure`, `ham` (people's own messages) as `plain`.

- Enron e-mail (the CMU release of mail FERC made public; no licence stated, a research
  corpus), as mirrored in Edgar427/Team22introtoAI: a sample of inbox paragraphs as `plain`,
  the ordinary business mail (meeting notices, reminders, directives, newsletters) a pressing
  message must be told from. Mails that Veil's e-mail sets hold (training/data/emails,
  bench/data/emails_real_sealed.jsonl) are left out, so those sets stay unseen.

Splits go by a stable hash of the message text with digits, case and spacing folded (one in
five sealed), so a message repeated in the corpus, or sent again with another number, never
sits on both sides.

    python -m training.pressure_sources --out ../shared/benchmarks/pressure
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import subprocess
from pathlib import Path

MIRROR = Path("/work/.mirror")
SMS_SPAM = ("hamzaaacodes/sms-spam-collection", "CC BY 4.0")
ENRON = ("Edgar427/Team22introtoAI", "no licence stated (Enron corpus, public record)")
ENRON_MAILS = 1500
ROOT = Path(__file__).resolve().parents[1]
MAIL_SETS = (
    ROOT / "training" / "data" / "emails" / "emails_real_dev.jsonl",
    ROOT / "bench" / "data" / "emails_real_sealed.jsonl",
)
SEALED_SHARE = 5
LABELS = {"spam": "pressure", "ham": "plain"}


def split_of(text: str) -> str:
    """`sealed` for one message text in SEALED_SHARE by a hash that never changes, taken over
    the text with its digits, case and spacing folded: the same spam sent with another number
    or prize lands on the same side."""
    folded = re.sub(r"\d", "#", " ".join(text.casefold().split()))
    digest = int(hashlib.sha1(folded.encode()).hexdigest()[:8], 16)
    return "sealed" if digest % SEALED_SHARE == 0 else "train"


def sms_spam_rows(repo: Path) -> list[dict[str, str]]:
    """The corpus's messages with their label, source and split."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), *args], check=True, capture_output=True
        ).stdout.decode("utf-8")

    commit = git("rev-parse", "HEAD").strip()
    rows = []
    for line in git("show", "HEAD:SMSSpamCollection").splitlines()[1:]:  # a header row first
        label, _, text = line.partition("\t")
        text = text.strip()
        if label in LABELS and text:
            rows.append({
                "text": text,
                "label": LABELS[label],
                "source": f"{SMS_SPAM[0]}@{commit[:7]} ({SMS_SPAM[1]})",
                "split": split_of(text),
            })  # fmt: skip
    return rows


def _mail_paragraphs(raw: str) -> list[str]:
    """A mail's own paragraphs: after its headers, before any quoted or forwarded original."""
    _, _, body = raw.replace("\r\n", "\n").partition("\n\n")
    body = re.split(r"\n-{3,}\s*(?:Original Message|Forwarded by)|\n\s*>", body)[0]
    return [
        " ".join(part.split())
        for part in re.split(r"\n\s*\n", body)
        if 30 <= len(part.strip()) <= 1200
    ]


def enron_rows(repo: Path, seed: int = 17) -> list[dict[str, str]]:
    """Paragraphs of a seeded sample of inbox mails, none from Veil's own e-mail sets."""
    taken = {
        json.loads(line)["source"]["path"]
        for path in MAIL_SETS
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    commit = (
        subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True
        )
        .stdout.decode()
        .strip()
    )
    names = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD", "maildir"],
        check=True, capture_output=True,
    ).stdout.decode().splitlines()  # fmt: skip
    inbox = sorted(n for n in names if "/inbox/" in n and n not in taken)
    rows = []
    for name in random.Random(seed).sample(inbox, min(ENRON_MAILS, len(inbox))):
        raw = subprocess.run(
            ["git", "-C", str(repo), "show", f"HEAD:{name}"], check=True, capture_output=True
        ).stdout.decode("utf-8", errors="replace")
        for paragraph in _mail_paragraphs(raw):
            rows.append({
                "text": paragraph,
                "label": "plain",
                "source": f"{ENRON[0]}@{commit[:7]}:{name} ({ENRON[1]})",
                "split": split_of(paragraph),
            })  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    rows = sms_spam_rows(MIRROR / SMS_SPAM[0].replace("/", "+") / "repo")
    rows += enron_rows(MIRROR / ENRON[0].replace("/", "+") / "repo")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "pressure_corpora.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts = {(r["label"], r["split"]) for r in rows}
    print(path, len(rows), {k: sum((r["label"], r["split"]) == k for r in rows) for k in counts})


if __name__ == "__main__":
    main()
