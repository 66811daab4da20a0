"""The message model of lang/: metadata never read as content, quoting and forwarding, and
each message's own stamp. Each table has rows the mechanism must fire on and rows it must not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lang.thread import messages, split_thread

# (text, screen, line index, expected kind, expected field): metadata lines of many clients.
META_ROWS = [
    # fires
    ("[10:02] Ana: lunch?\nRead 10:03\n[10:04] Tom: ok", False, 1, "meta", "receipt"),
    ("Ana: lunch?\nDelivered\nTom: ok", False, 1, "meta", "receipt"),
    ("Ana: lunch?\nSeen by Tom\nTom: ok", False, 1, "meta", "receipt"),
    ("Ana: hi\nGelesen 10:03\nTom: ok", False, 1, "meta", "receipt"),
    ("Ana: hi\niMessage\nTom: ok", False, 1, "meta", "client"),
    ("Today\nDana Whit  10:02 AM\nlunch thu at 1?", False, 0, "meta", "divider"),
    ("Tuesday, March 3\n[10:02] Ana: hi", False, 0, "meta", "divider"),
    ("9:41\nToday 9:41 AM\nfriday 7pm?", True, 0, "meta", "divider"),
    ("9:41\nToday 9:41 AM\nfriday 7pm?", True, 1, "meta", "divider"),
    ("-----Original Message-----\nFrom: Ann\nSent: Mon 9:00\nlunch?", False, 0, "meta",
     "original"),
    ("---------- Forwarded message ---------\nFrom: Ann <a@x.com>\nDate: Mon 9:00\nhi", False, 0,
     "meta", "forwarded"),
    ("---- Forwarded by J Smith/LON/XYZ on 02/03/2001 09:41 AM ----\nMeet Tuesday 3pm", False, 0,
     "meta", "lotus_forward"),
    ("Begin forwarded message:\n\nFrom: Ann\nDate: Mon 9:00\nhi", False, 0, "meta", "forwarded"),
    ("----- Ursprüngliche Nachricht -----\nVon: Jürgen\nGesendet: Mo 9:00\nhallo", False, 0,
     "meta", "original"),
    # a webmail copy's unlabelled header lines (Gmail, Outlook on the web)
    ("Maria Lopez <maria@firm.com>\nThu, Nov 26, 2026, 9:00 AM (scheduled send)\nto me\n\nhi",
     False, 1, "header", "sent"),
    ("Maria Lopez <maria@firm.com>\n9:41 AM (5 minutes ago)\nto me, Bob\n\nhi", False, 0,
     "header", "from"),
    ("Maria Lopez <maria@firm.com>\n9:41 AM (5 minutes ago)\nto Tom, me\n\nhi", False, 2,
     "header", "to"),
    ("Jürgen Weber <jw@x.de>\n26.11.2026, 09:00 (vor 2 Tagen)\nan mich\n\nhallo", False, 2,
     "header", "to"),
    # ... with a bare sent stamp, between the sender's line and the recipients'
    ("Marcus Bell <mb@fastmail.com>\nTue, Dec 1, 7:02 AM\nto Kevin, me\n\nsee you Saturday",
     False, 1, "header", "sent"),
    ("<PERSON_1> <<EMAIL_1>>\nTue, Dec 1, 7:02 AM\nto <PERSON_2>, me\n\nhi", False, 1,
     "header", "sent"),
    # a stamp on a paste's first line, over a labelled message
    ("Today 9:41 AM\nMax: dinner sat at 8?", False, 0, "meta", "divider"),
    # a booking page's or an invite's row of links
    ("Your table is booked\nModify · Cancel", False, 1, "meta", "buttons"),
    ("Add to calendar: Google | Outlook | iCal\nSee you", False, 0, "meta", "buttons"),
    ("Modifier · Annuler\nÀ bientôt", False, 0, "meta", "buttons"),
    # must not fire: what a person wrote
    ("Ana: dinner?\nCancel\nTom: ok", False, 1, "text", None),
    ("no - cancel it, sorry\nok", False, 0, "text", None),
    ("Can we meet friday at 9:00 AM (my time)?\nthanks", False, 0, "text", None),
    ("Maria Lopez <maria@firm.com>\nFriday at 3pm\nsee you there", False, 1, "text", None),
    ("send it to me by friday\nthanks", False, 0, "text", None),
    ("[10:02] Ana: when?\nFriday at 3pm\n[10:03] Tom: ok", False, 1, "text", None),
    ("Can we meet?\nFriday at 3pm\nThanks", False, 1, "text", None),
    ("Friday at 3pm\nok?", False, 0, "text", None),
    ("Read the agenda before Friday\nAna: ok", False, 0, "text", None),
    ("The meeting is on\nTuesday, March 3, 2026 10:00 AM\nin room 4", False, 1, "text", None),
    ("Sent you the file\nTom: thanks", False, 0, "text", None),
    ("I forwarded the message to Tom", False, 0, "text", None),
    ("Delivered the boxes to Ana at 3", False, 0, "text", None),
]  # fmt: skip


@pytest.mark.parametrize(("text", "screen", "index", "kind", "field"), META_ROWS)
def test_metadata_lines(text: str, screen: bool, index: int, kind: str, field: str | None) -> None:
    line = split_thread(text, screen=screen)[index]
    assert (line.kind, line.field) == (kind, field)
    if kind == "meta":
        assert line.body_start == line.body_end  # nothing of it is ever parsed as content


# (text, line index, speaker or None): "Name  10:02" headers against the date lines of notices.
HEADER_ROWS = [
    # fires
    ("Dana Whit  10:02\nlunch tomorrow?", 0, "Dana Whit"),
    ("June Smith  10:02 AM\nhey", 0, "June Smith"),
    ("Priya, [12.03.2026 10:02]\nhi", 0, "Priya"),
    # Teams copy: the stamp first, the name as "Last, First"
    ("[10:03 AM] Patel, Nisha\nCan everyone make 3:00?", 0, "Patel, Nisha"),
    ("[10:03 AM] <PERSON_1>, <PERSON_2>\nhi", 0, "<PERSON_1>, <PERSON_2>"),
    # Teams chat copy: a surname first; the user's own "You" over a zero-led stamp
    ("Schmidt, Lena 09:14\nCould we move our 1:1?", 0, "Schmidt, Lena"),
    ("Schmidt, Lena 09:14\nmove?\nYou 09:20\nok", 2, "You"),
    ("<PERSON_1> 09:33\nMonday is fine", 0, "<PERSON_1>"),
    # Discord copy: the name, a dash, the stamp
    ("Rook — Today at 10:02 AM\nraid tonight 9pm?", 0, "Rook"),
    ("Kestrel - 25/11/2026 10:06\nin", 0, "Kestrel"),
    ("zed — Today at 09:12\ngame night sat 8pm?", 0, "zed"),  # a username in lower case
    # must not fire: a day and month are no name, a stamp with no clock opens no message
    ("Flight UA 123\nMon, Dec 7\nDeparts 6:50 AM", 1, None),
    ("Fri, 9 Oct\nTable for 2", 0, None),
    ("Tuesday  10:02\nhey", 0, None),
    ("Sa., 14. Mai\nEinlass 18 Uhr", 0, None),
    ("[10:02] ok thanks\n[10:03] Priya: see you", 0, None),
    ("Platform 4 — 10:02\nDelayed", 0, None),
    ("the plan — Today at 10:02\nok", 0, None),
    ("sure - 3pm\nok", 0, None),
    ("John 3:16\nFor God so loved the world", 0, None),
    ("Meeting 09:30\nRoom 4", 0, None),
]


@pytest.mark.parametrize(("text", "index", "speaker"), HEADER_ROWS)
def test_name_stamp_headers(text: str, index: int, speaker: str | None) -> None:
    assert split_thread(text)[index].speaker == speaker


def test_lotus_forward_keeps_the_forwarder_as_a_speaker_for_privacy() -> None:
    [line, _] = split_thread("---- Forwarded by J Smith/LON/XYZ on 02/03/2001 09:41 AM ----\nhi")
    assert (line.speaker, line.stamp) == ("J Smith", "02/03/2001 09:41 AM")


REPLY = """From: Tom Baker <tom@x.com>
Sent: Tue, Mar 3, 2026 3:14 PM
Subject: RE: lunch

Sorry, that doesn't work anymore.

-----Original Message-----
From: Ann Lee
Sent: Monday, March 2, 2026 9:00 AM
Subject: lunch

Lunch Friday at 1pm?
"""


def test_an_outlook_reply_quotes_the_original_under_it() -> None:
    reply, original = messages(REPLY)
    assert (reply.speaker, reply.stamp, reply.quoted) == ("Tom Baker", "Tue, Mar 3, 2026 3:14 PM",
                                                          False)  # fmt: skip
    assert (original.speaker, original.quoted, original.block) == ("Ann Lee", True, "original")
    assert original.stamp == "Monday, March 2, 2026 9:00 AM"
    assert "Lunch Friday at 1pm?" in original.body(REPLY)
    assert "Lunch" not in reply.body(REPLY)


@pytest.mark.parametrize(
    ("text", "depths"),
    [
        ("works for me\n\nOn Mon, Jun 3, 2024 at 10:00 AM Ann <a@x.com> wrote:\n> lunch at 1?",
         [0, 2]),
        ("ok\n> see you at 3\n>> at 3?", [0, 1, 2]),
        ("no quote here > not a mark", [0]),  # a ">" inside a line is no quote mark
        ("From: Ann <a@x.com>\nTo: Tom <t@x.com>\nSubject: hi\n\nlunch at 1?", [0]),
    ],
)  # fmt: skip
def test_quote_depth(text: str, depths: list[int]) -> None:
    assert [m.quote_depth for m in messages(text)] == depths


def test_a_webmail_conversation_lists_its_messages_oldest_first() -> None:
    text = (
        "Tom Baker <tom@x.com>\nMon, Nov 23, 2026, 9:41 AM (2 days ago)\nto me, Ann\n\n"
        "Lunch friday at 1?\n\nAnn Lee <ann@y.com>\nTue, Nov 24, 2026, 4:10 PM (1 day ago)\n"
        "to Tom, me\n\nSure!"
    )
    found = messages(text)
    assert [(m.speaker, m.quoted) for m in found] == [("Tom Baker", False), ("Ann Lee", False)]
    assert [m.stamp for m in found] == ["Mon, Nov 23, 2026, 9:41 AM", "Tue, Nov 24, 2026, 4:10 PM"]


def test_a_gmail_forward_is_content_not_an_older_quote() -> None:
    text = ("FYI\n\n---------- Forwarded message ---------\nFrom: School <office@school.org>\n"
            "Date: Mon, Mar 2, 2026 at 9:00 AM\nSubject: Open day\n\n"
            "Open day will be held on 4 May from 10:00 to 12:00.")  # fmt: skip
    note, forwarded = messages(text)
    assert (forwarded.block, forwarded.quoted) == ("forwarded", False)
    assert forwarded.stamp == "Mon, Mar 2, 2026 at 9:00 AM"
    assert "4 May" in forwarded.body(text)


def test_a_divider_day_joins_the_clock_stamps_under_it() -> None:
    text = "Tuesday, March 3\nDana Whit  10:02 AM\nlunch thu at 1?\nSam Lee  10:05 AM\nworks"
    first, second = messages(text)
    assert first.stamp == "Tuesday, March 3 10:02 AM"
    assert second.stamp == "Tuesday, March 3 10:05 AM"
    assert first.body(text) == "lunch thu at 1?"


def test_a_timed_divider_stamps_the_bubbles_of_a_screenshot() -> None:
    [only] = messages("9:41\nToday 9:41 AM\nare we on for friday 7pm?\nyes!", screen=True)
    assert only.stamp == "Today 9:41 AM"
    assert [field.field for field in only.metadata] == ["divider", "divider"]


# Each package's rank in DESIGN.md's "Layers" (imports point down only); memory sits under
# the tools that read and write it; understanding (what messages mean) sits between the tools
# and the agent; run.py, the entry point, may start the web app. training/ is the offline loop
# over the agent, like bench/.
_RANK = {
    "lang": 0,
    "privacy": 1,
    "memory": 2,
    "tools": 3,
    "understanding": 3.5,
    "agent": 4,
    "web": 5,
    "run": 6,
}


def _veil_imports(path: Path) -> set[str]:
    """The Veil packages a module imports at any depth of its code (lazy imports included)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & set(_RANK)


@pytest.mark.parametrize("package", sorted(_RANK))
def test_imports_point_down_the_layers(package: str) -> None:
    root = Path(__file__).resolve().parents[1]
    paths = [root / "run.py"] if package == "run" else sorted((root / package).rglob("*.py"))
    assert paths
    upward = {
        f"{path.relative_to(root)} imports {name}"
        for path in paths
        for name in _veil_imports(path)
        if name != package and _RANK[name] >= _RANK[package]
    }
    assert not upward


def test_the_layer_check_can_fail(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from agent.gate import x\n", encoding="utf-8")
    assert _veil_imports(module) == {"agent"}


@pytest.mark.parametrize(
    ("header", "names", "stamp"),
    [
        # Lotus Notes: a name with its units and organisation; a sender with when it was sent
        (
            "To: Sally Beck/HOU/ECT@ECT, Brent Price/HOU/ECT@ECT",
            ["Sally Beck", "Brent Price"],
            None,
        ),
        ("From: Patti Thompson on 03/01/2001 04:32 PM", ["Patti Thompson"], "03/01/2001 04:32 PM"),
        # must not fire: ordinary addresses, a name with "on" and no stamp
        ('Cc: Tom Baker <tom@x.com>; "Lee, Ann" <ann@y.com>', ["Tom Baker", "Lee, Ann"], None),
        ("From: Jo on Call <jo@x.com>", ["Jo on Call"], None),
    ],
)
def test_mail_header_names(header: str, names: list[str], stamp: str | None) -> None:
    text = f"{header}\nSubject: Staff Meeting\n\nPlease plan to attend"
    line = split_thread(text)[0]
    assert line.kind == "header"
    assert [n[0] for n in line.names] == names
    assert line.stamp == stamp


@pytest.mark.parametrize(
    ("header", "speaker"),
    [
        # the redactor's person placeholder is the sender; an address placeholder is not
        ("From: <PERSON_1> <EMAIL_1>", "<PERSON_1>"),
        ("From: <PERSON_1> <<EMAIL_1>>", "<PERSON_1>"),
        ("From: Priya Sharma <priya@x.in>", "Priya Sharma"),
        ("From: <EMAIL_1>", None),
    ],
)
def test_the_sender_of_a_redacted_mail(header: str, speaker: str | None) -> None:
    text = f"{header}\nSubject: lunch\n\nFriday at 1?"
    assert messages(text)[0].speaker == speaker
