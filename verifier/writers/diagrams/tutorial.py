"""Include blocks: a Markdown file quotes generated files between marker comments.

    <!-- include: diagrams/run-lifecycle.mmd -->
    ...the file, rendered by `render`...
    <!-- end include -->

The path is relative to the repository root. `refresh` rewrites every block from its file; a block
whose file does not exist yet keeps what it has (a placeholder) and is reported as missing.
`render` is the one rule for how a file appears in the document: a Mermaid file in a ```mermaid
fence, a Markdown file as it is with its headings moved down two levels, anything else fenced.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

BLOCK = re.compile(r"(<!-- include: (?P<path>[^\s>]+) -->\n)(?P<body>.*?)(<!-- end include -->)", re.DOTALL)
FENCES = {".mmd": "mermaid", ".json": "json", ".dot": "dot", ".py": "python", ".txt": "text"}


@dataclass(frozen=True)
class Block:
    path: str
    body: str               # what the document holds between the markers
    expected: str | None    # what the file renders to; None when the file does not exist yet

    @property
    def status(self) -> str:
        if self.expected is None:
            return "missing"
        return "current" if self.body == self.expected else "stale"


def render(path: str, text: str) -> str:
    text = text if text.endswith("\n") else text + "\n"
    suffix = Path(path).suffix
    if suffix == ".md":
        return re.sub(r"^(#{1,4}) ", lambda m: "#" * min(len(m.group(1)) + 2, 6) + " ", text, flags=re.MULTILINE)
    fence = "~~~~" if "```" in text else "```"
    return f"{fence}{FENCES.get(suffix, 'text')}\n{text}{fence}\n"


def blocks(document: str, root: Path) -> list[Block]:
    out = []
    for m in BLOCK.finditer(document):
        f = Path(root) / m.group("path")
        expected = render(m.group("path"), f.read_text(encoding="utf-8")) if f.is_file() else None
        out.append(Block(m.group("path"), m.group("body"), expected))
    return out


def refresh(document: str, root: Path) -> tuple[str, list[Block]]:
    """The document with every block whose file exists rewritten from it, and the blocks as they were."""
    found = blocks(document, root)
    by_path = {b.path: b for b in found}

    def sub(m: re.Match) -> str:
        b = by_path[m.group("path")]
        body = b.expected if b.expected is not None else m.group("body")
        return m.group(1) + body + m.group(4)

    return BLOCK.sub(sub, document), found
