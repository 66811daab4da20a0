"""Veil's command line: parse flags and environment, then hand over to the real entry points.

python run.py                     start the chat page on http://127.0.0.1:5000
python run.py ask [...] "request" one turn; --json prints the turn bundle
python run.py redact [--json] FILE|-
python run.py calendar connect URL --user NAME [--calendar NAME]...   your own CalDAV calendar
python run.py mcp [...]           an MCP server on stdio (docs/mcp.md)
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib.abc
import importlib.machinery
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Any

# Nothing may reach for the network: set before any library that reads them is imported.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

# Libraries for `make train*` only. spaCy's thinc and Presidio's transformers engine import
# them when present, though Veil never runs them: 3 s and 500 MB per start. Refused here,
# those optional imports fall back exactly as on a machine without them.
TRAINING_ONLY = frozenset({"torch", "transformers", "sentence_transformers"})


class _TrainingOnly(importlib.abc.MetaPathFinder):
    """Answers an import of a training-only library as if it were not installed."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] in TRAINING_ONLY:
            raise ModuleNotFoundError(f"{name} is for training only, not Veil's runtime", name=name)
        return None


class _SpacyCommandLine(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """spaCy imports its command line (typer, weasel, httpx: 0.15 s of every start) only to
    export `spacy.info`, which Veil never calls. `spacy.cli` becomes an empty package whose
    submodules still import from their files, and `spacy.cli.info` a stand-in that says so."""

    NAMES = ("spacy.cli", "spacy.cli.info")

    def find_spec(
        self, name: str, path: Any = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in self.NAMES:
            return None
        package = name == "spacy.cli"
        spec = importlib.machinery.ModuleSpec(name, self, is_package=package)
        if package and path:
            spec.submodule_search_locations = [os.path.join(entry, "cli") for entry in path]
        return spec

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: Any) -> None:
        if module.__name__ == "spacy.cli.info":
            module.info = _spacy_info


def _spacy_info(*args: object, **kwargs: object) -> None:
    raise RuntimeError("spaCy's command line is not loaded in Veil; run `python -m spacy info`")


def keep_training_libraries_out() -> None:
    """Install the refusal, and spaCy's command-line stand-in, for this process (the
    front-ends call it before importing Veil)."""
    if not any(isinstance(finder, _TrainingOnly) for finder in sys.meta_path):
        sys.meta_path.insert(0, _TrainingOnly())
    if not any(isinstance(finder, _SpacyCommandLine) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SpacyCommandLine())


def _add_model_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--model", help="path of a GGUF chat model (env VEIL_MODEL)")
    group.add_argument("--llm-url", help="OpenAI-compatible server URL (env VEIL_LLM_URL)")
    group.add_argument("--no-llm", action="store_true", help="rule-based only, no model")
    parser.add_argument(
        "--no-adapter",
        action="store_true",
        help="the embedded model without Veil's fine-tuned adapter (env VEIL_NO_ADAPTER)",
    )
    parser.add_argument("--data-dir", help="where Veil keeps its data (env VEIL_DATA_DIR)")
    parser.add_argument("--mail-dir", help="a folder of .eml/.mbox mail (env VEIL_MAIL_DIR)")
    parser.add_argument("--docs-dir", help="a folder of .txt/.md/.pdf/.docx (env VEIL_DOCS_DIR)")


def build_parser() -> argparse.ArgumentParser:
    """The command line of DESIGN.md."""
    parser = argparse.ArgumentParser(prog="run.py", description="Veil, a private offline assistant")
    sub = parser.add_subparsers(dest="command")

    serve = sub.add_parser("serve", help="start the chat page (the default)")
    _add_model_flags(serve)
    serve.add_argument("--host", default="127.0.0.1", help="bind address (default loopback)")
    serve.add_argument("--port", type=int, default=5000)
    serve.add_argument(
        "--token",
        help="access token the page requires (env VEIL_ACCESS_TOKEN); made and printed when "
        "--host is not loopback",
    )
    serve.add_argument(
        "--allowed-hosts",
        help="other host names the page answers to, comma-separated (env VEIL_ALLOWED_HOSTS)",
    )

    ask = sub.add_parser("ask", help="run one turn")
    _add_model_flags(ask)
    ask.add_argument("request", help="what you want, e.g. 'lunch with karthik next thu at 1'")
    ask.add_argument("--now", help="ISO 8601 time of the turn (default: the clock)")
    ask.add_argument("--tz", help="IANA zone (default: this machine's)")
    ask.add_argument("--calendar", help="your calendar as an .ics file")
    ask.add_argument("--thread", help="a file holding the pasted thread")
    ask.add_argument("--audit", help="JSONL file that receives every model call")
    ask.add_argument("--json", action="store_true", help="print the turn bundle as JSON")
    ask.add_argument(
        "--session",
        help="continue the chat of this name or id (the page's chats too); new if none has it",
    )
    ask.add_argument(
        "--write",
        action="store_true",
        help="write the turn's events to your connected CalDAV calendar (you confirm them)",
    )

    calendar = sub.add_parser("calendar", help="connect your own CalDAV calendar (optional)")
    calendar.add_argument("--data-dir", help="where Veil keeps its data (env VEIL_DATA_DIR)")
    calendar.add_argument("--tz", help="IANA zone (default: this machine's)")
    calendar.add_argument("--timeout", type=float, default=10.0, help="seconds per request")
    actions = calendar.add_subparsers(dest="action", required=True)
    connect = actions.add_parser("connect", help="check the login, keep it, first sync")
    connect.add_argument("url", help="the CalDAV URL, e.g. https://caldav.fastmail.com/")
    connect.add_argument("--user", required=True, help="the account's user name")
    connect.add_argument(
        "--calendar", action="append", default=[], help="a calendar to read (name or URL; "
        "repeat for more; default all)",
    )  # fmt: skip
    connect.add_argument("--write-to", help="the calendar confirmed events go to (default first)")
    connect.add_argument(
        "--password-stdin", action="store_true",
        help="read the password from standard input instead of a prompt (never a flag)",
    )  # fmt: skip
    actions.add_parser("sync", help="refresh the cached copy now")
    actions.add_parser("status", help="the account, calendars and unsent writes")
    actions.add_parser("disconnect", help="forget the account, its password and its cache")

    mcp = sub.add_parser("mcp", help="serve Veil's tools over the Model Context Protocol (stdio)")
    _add_model_flags(mcp)
    mcp.add_argument("--now", help="a fixed ISO 8601 time for every call (default: the clock)")
    mcp.add_argument("--tz", help="IANA zone (default: this machine's)")
    mcp.add_argument("--calendar", help="your calendar as an .ics file, imported at start")
    mcp.add_argument("--audit", help="JSONL file that receives every model call")

    redact = sub.add_parser("redact", help="run the privacy layer alone")
    redact.add_argument("file", help="a text file, or - for standard input")
    form = redact.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print spans as JSON")
    form.add_argument(
        "--jsonl",
        action="store_true",
        help='one {"text": ...} object per input line, one --json result per output line',
    )
    return parser


def _yes(name: str) -> bool:
    return os.environ.get(name, "").lower() in ("1", "true", "yes")


def _model_choice(args: argparse.Namespace) -> dict[str, object]:
    """All model keys, so a flag overrides the environment instead of joining it."""
    none = {
        "model_path": None,
        "llm_url": None,
        "no_llm": False,
        "no_adapter": args.no_adapter or _yes("VEIL_NO_ADAPTER"),
    }
    if args.no_llm:
        return {**none, "no_llm": True}
    if args.model:
        return {**none, "model_path": args.model}
    if args.llm_url:
        return {**none, "llm_url": args.llm_url}
    if _yes("VEIL_NO_LLM"):
        return {**none, "no_llm": True}
    return {
        **none,
        "model_path": os.environ.get("VEIL_MODEL"),
        "llm_url": os.environ.get("VEIL_LLM_URL"),
    }


def _data_dir(args: argparse.Namespace) -> Path:
    from memory.paths import default_data_dir

    chosen = args.data_dir or os.environ.get("VEIL_DATA_DIR")
    return Path(chosen) if chosen else default_data_dir()


def _read_text(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    return Path(name).read_text(encoding="utf-8", errors="replace")


def _read_thread(name: str, tz: str) -> str:
    """The thread file as the text a turn reads: a chat export (WhatsApp .txt or .zip,
    Telegram, Signal or Slack JSON, .eml, .mbox) in its canonical form, other text as it is.
    How the export was read goes to stderr."""
    from tools.exports import read_export

    data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
    export = read_export(data, "the thread" if name == "-" else Path(name).name, tz=tz)
    if export.format != "paste":
        print(f"veil: {export.summary()}", file=sys.stderr)
    for note in export.notes:
        print(f"veil: {note}", file=sys.stderr)
    return export.text


def serve(args: argparse.Namespace) -> None:
    """Start the chat page on loopback (or where --host says, behind an access token)."""
    from web import create_app
    from web.security import access_url, is_loopback_bind, new_access_token

    token = args.token or os.environ.get("VEIL_ACCESS_TOKEN") or None
    if not is_loopback_bind(args.host) and not token:
        token = new_access_token()  # beyond loopback the page is never open without one
    if token:
        # printed once, like Jupyter's: the only place the token is shown
        print(f"Veil: open {access_url(args.host, args.port, token)}", flush=True)
    allowed = [args.allowed_hosts or os.environ.get("VEIL_ALLOWED_HOSTS") or ""]
    if args.host not in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
        allowed.append(f"[{args.host}]" if ":" in args.host else args.host)  # the bound name
    config = {
        "DATA_DIR": str(_data_dir(args)),
        "ALLOWED_HOSTS": ",".join(name for name in allowed if name),
        "MAIL_DIR": args.mail_dir or os.environ.get("VEIL_MAIL_DIR"),
        "DOCS_DIR": args.docs_dir or os.environ.get("VEIL_DOCS_DIR"),
        "BIND_HOST": args.host,
        "ACCESS_TOKEN": token,
        **{k.upper(): v for k, v in _model_choice(args).items()},
    }
    create_app(config).run(host=args.host, port=args.port, threaded=True)


def _checked_data_dir(folder: Path) -> Path:
    """The data folder made private, its store checked: a read-only folder or a damaged
    veil.db is one line naming the file and the fix, not a traceback (issue 40)."""
    from memory.errors import StoreError
    from memory.health import check_store
    from memory.paths import secure_data_dir

    try:
        folder = secure_data_dir(folder)
    except OSError as error:
        problem = check_store(folder).problem or f"cannot prepare {folder}: {error}"
        raise StoreError(problem) from None
    health = check_store(folder, thorough=True)
    if not health.ok:
        raise StoreError(str(health.problem))
    return folder


def _load_early(model: object) -> None:
    """Load the model on a thread while the privacy and time libraries import (two cores);
    a failure is left for the main thread's check, which reports it."""

    def load() -> None:
        try:
            model.check()  # type: ignore[attr-defined]
        except Exception:  # gateway.check() below raises it again, with its message
            pass

    threading.Thread(target=load, name="veil-model-load", daemon=True).start()


def ask(args: argparse.Namespace) -> None:
    """One turn from the command line."""
    from agent.backends import model_cache_dir, select_model
    from memory.paths import secure_data_dir

    data_dir = _checked_data_dir(_data_dir(args))
    model = select_model(**_model_choice(args), cache_dir=model_cache_dir(data_dir))
    if model is not None:
        _load_early(model)
    from agent.assistant import Turn, build_assistant, local_zone_name, parse_now, parse_zone
    from lang.text import clean_bytes, clean_text
    from tools.calendar.ics import as_utf8

    tz = args.tz or os.environ.get("TZ") or local_zone_name()
    now = parse_now(args.now, parse_zone(tz))
    assistant = build_assistant(
        audit_path=args.audit,
        data_dir=data_dir,
        mail_dir=args.mail_dir or os.environ.get("VEIL_MAIL_DIR"),
        docs_dir=args.docs_dir or os.environ.get("VEIL_DOCS_DIR"),
        model=model,
        **_model_choice(args),
    )
    assistant.gateway.check()
    # Control characters go before any parser sees them (a NUL made Duckling panic).
    thread = clean_text(_read_thread(args.thread, tz)) if args.thread else ""
    calendar = clean_bytes(as_utf8(Path(args.calendar).read_bytes())) if args.calendar else None
    turn = Turn(request=clean_text(args.request), thread=thread, now=now, tz=tz)
    calendar_name = Path(args.calendar or "calendar.ics").name
    try:
        if args.session:
            bundle = _ask_in_session(assistant, turn, clean_text(args.session), data_dir,
                                     calendar=calendar, calendar_name=calendar_name)  # fmt: skip
        else:
            bundle = assistant.ask(turn, calendar=calendar, calendar_name=calendar_name)
    finally:
        secure_data_dir(data_dir)  # the turn's .ics and .eml files: 0600 like the rest
    from agent.calendar_link import after_turn, catch_up, is_connected

    if args.write:  # the user confirmed: the reply says what the server did
        bundle = after_turn(bundle, data_dir=data_dir, write=True, tz=tz, now=now)
    if args.json:
        print(json.dumps(bundle.to_dict(), ensure_ascii=False, indent=2), flush=True)
    else:
        print(bundle.reply)
        if bundle.question:
            print(bundle.question)
        sys.stdout.flush()
    if not args.write and is_connected(data_dir):  # after the answer is out: never waits on it
        offered = sum(1 for f in bundle.files if f.type == "ics")
        for line in catch_up(data_dir=data_dir, tz=tz, now=now, offered=offered):
            print(f"veil: {line}", file=sys.stderr)


def calendar(args: argparse.Namespace) -> int:
    """`run.py calendar connect|sync|status|disconnect`: the user's own CalDAV calendar."""
    import getpass

    from agent.assistant import local_zone_name, parse_now, parse_zone
    from agent.calendar_link import calendar_command
    from memory.paths import secure_data_dir

    tz = args.tz or os.environ.get("TZ") or local_zone_name()
    password = None
    if args.action == "connect":
        password = sys.stdin.readline().rstrip("\r\n") if args.password_stdin else (
            getpass.getpass(f"CalDAV password for {args.user} (not shown): "))  # fmt: skip
    data_dir = secure_data_dir(_data_dir(args))
    try:
        print(calendar_command(
            args.action, data_dir=data_dir, tz=tz, now=parse_now(None, parse_zone(tz)),
            timeout=args.timeout, password=password,
            url=getattr(args, "url", None), user=getattr(args, "user", None),
            calendars=getattr(args, "calendar", []), write_to=getattr(args, "write_to", None),
        ))  # fmt: skip
    finally:
        secure_data_dir(data_dir)  # a new caldav_secret file: 0600 like the rest
    return 0


def mcp(args: argparse.Namespace) -> None:
    """Serve the MCP tools on stdin/stdout until the client closes them."""
    from agent.assistant import build_assistant, local_zone_name, parse_now, parse_zone
    from memory.paths import secure_data_dir
    from web.mcp_server import McpConfig, serve_stdio

    data_dir = secure_data_dir(_data_dir(args))
    tz = args.tz or os.environ.get("TZ") or local_zone_name()
    zone = parse_zone(tz)
    assistant = build_assistant(
        audit_path=args.audit,
        data_dir=data_dir,
        mail_dir=args.mail_dir or os.environ.get("VEIL_MAIL_DIR"),
        docs_dir=args.docs_dir or os.environ.get("VEIL_DOCS_DIR"),
        **_model_choice(args),
    )
    assistant.gateway.check()  # a model that cannot load fails now, not at the first call
    config = McpConfig(
        tz=tz,
        now=parse_now(args.now, zone) if args.now else None,
        calendar=Path(args.calendar) if args.calendar else None,
    )
    serve_stdio(assistant, config)


def _ask_in_session(assistant: Any, turn: Any, name: str, data_dir: Path, **calendar: Any) -> Any:
    """One turn of a stored chat (the page's store): its history and name map carry over."""
    import sqlite_utils

    from agent.session import answer_in_session, close_turn, find_or_create_session, open_turn
    from memory.errors import StoreError
    from memory.health import StoreMonitor
    from memory.store import MemoryStore
    from web.turns import turn_outcome

    store = MemoryStore(sqlite_utils.Database(data_dir / "veil.db"))
    try:
        turn.session = find_or_create_session(store, name)
        open_turn(store, turn)
        try:
            bundle = answer_in_session(assistant, store, turn, **calendar)
        except BaseException as error:  # the chat shows the turn failed, never left running
            try:
                store.finish_turn(turn.id, {"error": str(error)}, status="failed")
            except (ValueError, StoreError):  # a message the store refuses (a placeholder)
                store.finish_turn(turn.id, {"error": "the turn failed"}, status="failed")
            raise
        close_turn(store, turn, bundle)
        # Stored as the page stores its own turns, so the chat reads the same in the browser.
        store.finish_turn(turn.id, turn_outcome(bundle, turn, store, data_dir, audit=[]))
    finally:
        store.db.close()
    StoreMonitor(data_dir).backup()  # the page's rolling copy, taken after CLI turns too
    return bundle


def redact(args: argparse.Namespace) -> int:
    """The privacy layer alone."""
    from privacy.redactor import Redactor

    if args.jsonl:
        return redact_lines(args.file)
    result = Redactor().redact(_read_text(args.file))
    print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2) if args.json else result.text)
    return 0


def redact_lines(name: str) -> int:
    """`redact --jsonl`: a whole export in one process, one result per line as it is read.

    Each record is redacted on its own (placeholders restart at 1). A line that is not a JSON
    object with a text "text" gets {"line": N, "error": ...} in its place, so outputs stay
    aligned with inputs; the exit code is 2 when any line failed.
    """
    from privacy.errors import PrivacyError
    from privacy.redactor import Redactor

    failed = 0
    opened = None if name == "-" else open(name, encoding="utf-8", errors="replace")  # noqa: SIM115
    with opened or contextlib.nullcontext(sys.stdin) as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    raise ValueError(f"not JSON ({error.msg} at column {error.colno})") from None
                if not isinstance(record, dict) or not isinstance(record.get("text"), str):
                    raise ValueError('each line must be a JSON object with a text field "text"')
                out = Redactor().redact(record["text"]).to_dict()
            except (ValueError, PrivacyError) as error:
                failed += 1
                out = {"line": number, "error": str(error)}
            print(json.dumps(out, ensure_ascii=False), flush=True)
    if failed:
        print(
            f"veil: {failed} line(s) could not be redacted; see their error objects",
            file=sys.stderr,
        )
    return 2 if failed else 0


def main(argv: list[str] | None = None) -> int:
    """Dispatch; known failures become one line on stderr and exit code 2."""
    logging.basicConfig(level=os.environ.get("VEIL_LOG_LEVEL", "WARNING"))
    given = list(sys.argv[1:] if argv is None else argv)
    commands = ("serve", "ask", "redact", "calendar", "mcp", "-h", "--help")
    if not given or given[0] not in commands:
        given.insert(0, "serve")  # `run.py --no-llm` means `run.py serve --no-llm`
    args = build_parser().parse_args(given)
    command = args.command
    from agent.errors import AgentError
    from memory.errors import StoreError
    from privacy.errors import PrivacyError
    from tools.errors import ToolError
    from web.errors import WebError

    known = (AgentError, ToolError, PrivacyError, StoreError, WebError, OSError, UnicodeError)
    try:
        handlers = {"serve": serve, "ask": ask, "redact": redact, "calendar": calendar, "mcp": mcp}
        code = handlers[command](args)
    except known as error:
        print(f"veil: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception:
        raise  # a bug of ours: the traceback is what a report needs
    except SystemExit:
        raise
    except BaseException as error:  # a native panic (pyo3's PanicException) is no Exception
        logging.getLogger("veil").debug("native crash", exc_info=True)
        print(
            f"veil: a native library crashed on this input ({type(error).__name__}); nothing "
            "was saved. Remove unusual characters from the request or thread and try again.",
            file=sys.stderr,
        )
        return 2
    return code or 0


def tune_collector() -> None:
    """Collect young objects 14 times less often than Python's default (every 700 new ones).

    Starting Veil builds about a million objects that live as long as the process (modules,
    spaCy's vocabulary, word lists); the default threshold walks them again and again while
    they load: 0.3 s of a cold `ask` on 2 cores. Cycles are still collected, later.
    """
    gc.set_threshold(10_000, 10, 10)


if __name__ == "__main__":
    keep_training_libraries_out()  # the program only: tests that call main() may train too
    tune_collector()
    code = main()
    gc.freeze()  # the process ends: its last collections need not walk every object again
    sys.exit(code)
