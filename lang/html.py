"""HTML as the text a reader sees: what an HTML e-mail says, for the tools and the exports.

One converter for every layer (tools/email.py reads a mail folder, lang/exports/ an exported
message): scripts and styles go, block elements break lines, character references decode.
"""

from __future__ import annotations

from html.parser import HTMLParser


class _TextExtractor(HTMLParser):
    """HTML to plain text: drop scripts and styles, break lines at block elements."""

    _SKIP = {"script", "style", "head"}
    _BLOCK = {"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "blockquote", "table"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skipping += 1
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP and self._skipping:
            self._skipping -= 1
        elif tag in self._BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """Visible text of an HTML body, one block per line."""
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)
