"""A report as a document: blocks of inline runs built once in memory, rendered to markdown (report.md, summary.md,
audit.md) and to HTML (the top of report.html and audit.html), so nothing is parsed back.

Data only ever enters as text (`Text`, `Code`, or a plain str where a part is expected), which both renderers
escape; links point only to paths the report wrote or anchors of its page. A section is a function returning a
`Section`; a table is `Table(header, rows)`.
"""

from harness.errors import visible
from harness.report.document._html import render_html
from harness.report.document._markdown import render_markdown
from harness.report.document._model import (
    Block,
    BulletList,
    Cell,
    Code,
    Document,
    Figure,
    Inline,
    Link,
    Paragraph,
    Part,
    Section,
    Strong,
    Table,
    Text,
    local_target,
)

__all__ = [
    "Block",
    "BulletList",
    "Cell",
    "Code",
    "Document",
    "Figure",
    "Inline",
    "Link",
    "Paragraph",
    "Part",
    "Section",
    "Strong",
    "Table",
    "Text",
    "local_target",
    "render_html",
    "render_markdown",
    "visible",
]
