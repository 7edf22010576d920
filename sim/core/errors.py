"""User-facing errors: one line naming the file, line and field, then exit code 2."""
from __future__ import annotations


MAX_MESSAGE = 1000   # characters of one error line (messages quote short excerpts anyway)


class UserError(Exception):
    """A problem with something the user gave us (a file, an option, a value).

    The CLI prints ``str(error)`` as a single line and exits with code 2.
    """

    exit_code = 2

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        super().__init__(self.format())

    def format(self) -> str:
        where = []
        if self.file:
            where.append(str(self.file) + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.field:
            where.append(f"field '{self.field}'")
        prefix = ", ".join(where)
        text = f"{prefix}: {self.message}" if prefix else self.message
        text = "error: " + " ".join(text.split())  # always one line
        if len(text) > MAX_MESSAGE:    # never a file's contents or a huge value
            text = text[:MAX_MESSAGE - 3] + "..."
        return text
