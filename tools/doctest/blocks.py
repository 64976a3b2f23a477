"""The fenced (and indented) code blocks of Markdown files, with where they
are and whether they are marked as not run.

markdown-it-py parses the file, so a fence inside a list item or a block
quote is found as a reader's renderer finds it, and a ``` inside another
block is not mistaken for one."""
import re
from dataclasses import dataclass
from typing import List, Optional

from markdown_it import MarkdownIt

# The one way to keep a block from running: this comment on the line just
# before the block's opening fence (or its first line, for an indented block).
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>\S.*?)\s*-->\s*$")


@dataclass
class Block:
    path: str            # the Markdown file, as given
    line: int            # 1-based line of the opening fence (or first line)
    lang: str            # the info string's first word, lower case ("" when none)
    text: str            # the block's content
    not_run: Optional[str] = None  # the reason when marked
    indented: bool = False          # an indented code block (no info string possible)

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def extract(path: str, text: Optional[str] = None) -> List[Block]:
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    lines = text.split("\n")
    blocks = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type not in ("fence", "code_block") or token.map is None:
            continue
        start = token.map[0]           # 0-based line of the fence
        reason = None
        if start > 0:
            marked = NOT_RUN.match(lines[start - 1])
            if marked:
                reason = marked.group("reason")
        info = token.info.strip().split()
        blocks.append(Block(path=path, line=start + 1, lang=info[0].lower() if info else "",
                            text=token.content, not_run=reason, indented=token.type == "code_block"))
    return blocks
