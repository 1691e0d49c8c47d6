"""ABNF (RFC 5234) rendering of the RW1 grammar, derived from ``grammar/rw1.lark``.

Theory of operation
-------------------
The Lark grammar is the one source of syntax; this module only translates it.
Lark's own grammar reader parses ``rw1.lark`` into its EBNF tree (rules and
terminals, references unresolved), and every definition becomes one ABNF
rule, in the file's order:

* a rule or terminal name becomes a lowercase rulename (``MSGID`` ->
  ``msgid``, ``_TAIL_MARK`` -> ``tail-mark``; ``start`` -> ``line``). Names
  that RFC 5234's core rules already define (``DIGIT``, ``VCHAR``, ``SP``...)
  are prefixed ``rw-``, because ours are not the core's: RW1's visible
  character is Unicode, the core's ``VCHAR`` is ASCII;
* alternatives, sequences, ``*`` ``+`` ``?`` and ``~ n..m`` become ``/``,
  concatenation, ``*``, ``1*``, ``[ ]`` and ``n*m``;
* a string literal is case-sensitive in Lark and case-insensitive as an ABNF
  quoted string, so one that holds a letter or a double quote is written as
  ``%x`` values (``"RW"`` -> ``%x52.57``); others stay quoted;
* a regex literal is read by a small parser for the grammar's portable regex
  subset (classes of ranges and ``\\uXXXX`` / ``\\UXXXXXXXX`` escapes,
  ``(?:...)``, ``|``, ``* + ? {m,n}``) and written as ``%x`` ranges. Anything
  outside that subset is an error here, which is one more guard on the
  subset.

ABNF describes characters as code points (``%x10FFFF`` is one character), as
the protocol counts them. Lines end in CRLF, as RFC 5234 asks; no rule's
meaning depends on backtracking (the grammar writes ``MSGID`` so that a
greedy or PEG parser reads it), so parsers that tools such as apg-js build
from this text accept exactly the grammar's lines. ``tests/test_abnf.py`` reads the output back with
an independent ABNF reader and proves it accepts exactly the lines the Lark
parser accepts.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ._lark import Token, Tree, grammar_file_tree

# A node of Lark's parse of a .lark file: a Tree, a Token, or a Terminal/NonTerminal symbol.
_GrammarNode = Any

from .syntax import grammar_text

CORE_RULES = frozenset({
    "ALPHA", "BIT", "CHAR", "CR", "CRLF", "CTL", "DIGIT", "DQUOTE", "HEXDIG", "HTAB", "LF", "LWSP",
    "OCTET", "SP", "VCHAR", "WSP",
})
_WIDTH = 78


class AbnfError(ValueError):
    """The grammar uses a construct this rendering (and the portable subset) does not cover."""


def rulename(name: str) -> str:
    if name == "start":
        return "line"
    bare = name.lstrip("_")
    if bare.upper() in CORE_RULES:
        bare = "rw-" + bare
    return bare.lower().replace("_", "-")


# ---------------------------------------------------------------- regex literals

def _hex(code: int) -> str:
    return f"{code:02X}"


def _ranges(ranges: list[tuple[int, int]]) -> str:
    items = [f"%x{_hex(lo)}" if lo == hi else f"%x{_hex(lo)}-{_hex(hi)}" for lo, hi in ranges]
    return items[0] if len(items) == 1 else "( " + " / ".join(items) + " )"


class RegexReader:
    """A recursive-descent reader for the portable regex subset, emitting ABNF."""

    SPECIAL = set("()[]{}|*+?.^$\\")

    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0

    def fail(self, what: str) -> AbnfError:
        return AbnfError(f"{what} at offset {self.pos} of /{self.src}/: outside the portable regex subset")

    def peek(self) -> str:
        return self.src[self.pos] if self.pos < len(self.src) else ""

    def read(self) -> str:
        out = self.alternation()
        if self.pos != len(self.src):
            raise self.fail(f"unexpected {self.peek()!r}")
        return out

    def alternation(self) -> str:
        branches = self.branches()
        return branches[0] if len(branches) == 1 else "( " + " / ".join(branches) + " )"

    def branches(self) -> list[str]:
        found = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            found.append(self.sequence())
        return found

    def sequence(self) -> str:
        items = []
        while self.peek() not in ("", "|", ")"):
            items.append(self.quantified())
        if not items:
            raise self.fail("empty alternative")
        return " ".join(items)

    def quantified(self) -> str:
        atom = self.atom()
        ch = self.peek()
        if ch in ("*", "+", "?"):
            self.pos += 1
            if self.peek() in ("?", "+"):
                raise self.fail("lazy or possessive quantifier")
            return {"*": f"*{atom}", "+": f"1*{atom}", "?": f"[ {atom} ]"}[ch]
        if ch == "{":
            end = self.src.index("}", self.pos)
            body = self.src[self.pos + 1:end]
            lo, _, hi = body.partition(",")
            if not lo.isdigit() or (hi and not hi.isdigit()):
                raise self.fail("bad repetition")
            self.pos = end + 1
            hi = hi if "," in body else lo
            return f"{lo}*{hi}{atom}" if lo != hi else f"{lo}{atom}"
        return atom

    def atom(self) -> str:
        ch = self.peek()
        if ch == "(":
            if not self.src.startswith("(?:", self.pos):
                raise self.fail("a group other than (?:...)")
            self.pos += 3
            branches = self.branches()
            if self.peek() != ")":
                raise self.fail("unclosed group")
            self.pos += 1
            if len(branches) == 1 and " " not in branches[0]:
                return branches[0]
            return "( " + " / ".join(branches) + " )"
        if ch == "[":
            return _ranges(self.char_class())
        if ch in (".", "^", "$"):
            raise self.fail(f"{ch!r} (its meaning differs between regex engines)")
        code = self.char()
        return _ranges([(code, code)])

    def char(self) -> int:
        ch = self.peek()
        if ch == "":
            raise self.fail("unexpected end")
        if ch != "\\":
            self.pos += 1
            return ord(ch)
        esc = self.src[self.pos + 1:self.pos + 2]
        if esc == "u":
            digits, width = self.src[self.pos + 2:self.pos + 6], 6
        elif esc == "U":
            digits, width = self.src[self.pos + 2:self.pos + 10], 10
        elif esc and not esc.isalnum():
            self.pos += 2
            return ord(esc)
        else:
            raise self.fail(f"escape \\{esc}")
        try:
            code = int(digits, 16)
        except ValueError:
            raise self.fail("bad code point escape") from None
        self.pos += width
        return code

    def char_class(self) -> list[tuple[int, int]]:
        self.pos += 1
        if self.peek() == "^":
            raise self.fail("negated class")
        ranges: list[tuple[int, int]] = []
        while self.peek() != "]":
            if self.peek() == "":
                raise self.fail("unclosed class")
            if self.peek() == "[":
                raise self.fail("nested class")
            lo = self.char()
            if self.peek() == "-" and self.src[self.pos + 1:self.pos + 2] not in ("]", ""):
                self.pos += 1
                hi = self.char()
                if hi < lo:
                    raise self.fail("reversed range")
                ranges.append((lo, hi))
            else:
                ranges.append((lo, lo))
        self.pos += 1
        merged: list[tuple[int, int]] = []
        for lo, hi in sorted(ranges):
            if merged and lo <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
            else:
                merged.append((lo, hi))
        return merged


def regex_to_abnf(source: str) -> str:
    return RegexReader(source).read()


# ---------------------------------------------------------------- EBNF trees

def _string(literal: str) -> str:
    text = literal[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    if not text:
        raise AbnfError("empty string literal")
    if any(c.isalpha() or c == '"' or not (0x20 <= ord(c) <= 0x7E) for c in text):
        return "%x" + ".".join(_hex(ord(c)) for c in text)
    return f'"{text}"'


def _literal(token: Token) -> str:
    text = str(token)
    if token.type == "STRING":
        if not text.endswith('"'):
            raise AbnfError(f"string flags in {text}")
        return _string(text)
    if token.type == "REGEXP":
        body, _, flags = text[1:].rpartition("/")
        if flags:
            raise AbnfError(f"regex flags /{flags} in {text}")
        return regex_to_abnf(body)
    raise AbnfError(f"literal of type {token.type}")


def _expr(tree: _GrammarNode) -> str:
    if isinstance(tree, Token):
        return rulename(str(tree))
    if hasattr(tree, "name") and not isinstance(tree, Tree):  # a Terminal or NonTerminal symbol
        return rulename(tree.name)
    kind = tree.data
    if kind == "expansions":
        parts = [_expr(c) for c in tree.children]
        return parts[0] if len(parts) == 1 else "( " + " / ".join(parts) + " )"
    if kind == "expansion":
        if not tree.children:
            raise AbnfError("an empty alternative")
        return " ".join(_group(c) for c in tree.children)
    if kind == "expr":
        atom, op, *rest = tree.children
        inner = _group(atom)
        operator = str(op)
        if operator == "*":
            return f"*{inner}"
        if operator == "+":
            return f"1*{inner}"
        if operator == "?":
            return f"[ {_expr(atom)} ]"
        if operator == "~":
            lo = int(rest[0])
            hi = int(rest[1]) if len(rest) > 1 else lo
            return f"{lo}{inner}" if lo == hi else f"{lo}*{hi}{inner}"
        raise AbnfError(f"operator {operator!r}")
    if kind == "value":
        (child,) = tree.children
        return _expr(child)
    if kind == "literal":
        return _literal(tree.children[0])
    if kind == "range":
        first, last = (_string(str(t)) for t in tree.children)
        if not (first.startswith("%x") and last.startswith("%x")) and (len(str(tree.children[0])) != 3):
            raise AbnfError("a range of more than one character")
        return f"%x{_hex(ord(str(tree.children[0])[1]))}-{_hex(ord(str(tree.children[1])[1]))}"
    raise AbnfError(f"grammar construct {kind!r}")


def _group(tree: _GrammarNode) -> str:
    """An element, bracketed when it is an alternation or a sequence."""
    text = _expr(tree)
    if isinstance(tree, Tree) and tree.data in ("expansions", "expansion", "value") and _is_compound(tree):
        return f"( {text} )" if not text.startswith("( ") or not text.endswith(" )") else text
    return text


def _is_compound(tree: _GrammarNode) -> bool:
    while isinstance(tree, Tree) and tree.data in ("value", "expansions", "expansion") and len(tree.children) == 1:
        tree = tree.children[0]
    return isinstance(tree, Tree) and tree.data in ("expansions", "expansion") and len(tree.children) > 1


def _comment_lines(text: str) -> dict[str, list[str]]:
    """The // comment block right above each definition, keyed by its name."""
    found: dict[str, list[str]] = {}
    block: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            block.append(stripped[2:].strip())
            continue
        if stripped and ":" in stripped:
            name = stripped.split(":", 1)[0].strip().lstrip("?!")
            name = name.split(".")[0]
            if block:
                found[name] = block
        block = []
    return found


def _wrap(name: str, body: str) -> list[str]:
    head = f"{name} = "
    if len(head) + len(body) <= _WIDTH:
        return [head + body]
    lines, current = [], head
    indent = " " * len(head)
    for word in body.split(" "):
        if len(current) + len(word) + 1 > _WIDTH and current.strip() and current != head:
            lines.append(current.rstrip())
            current = indent
        current += word + " "
    lines.append(current.rstrip())
    return lines


def definitions(text: str | None = None) -> list[tuple[str, str]]:
    """(rulename, ABNF element) for every definition of the grammar, in order."""
    tree = grammar_file_tree(text if text is not None else grammar_text())
    out = []
    for item in tree.children:
        if item.data == "rule":
            name = str(item.children[1])
            body = item.children[-1]
        elif item.data == "term":
            name = str(item.children[0])
            body = item.children[-1]
            if len(item.children) > 2 and item.children[1] not in (None,) and isinstance(item.children[1], Token):
                raise AbnfError(f"terminal priority on {name}")
        else:
            raise AbnfError(f"grammar statement {item.data!r} (imports, ignores and overrides are not portable)")
        out.append((rulename(name), _expr(body)))
    return out


@lru_cache(maxsize=1)
def render() -> str:
    """The whole ABNF document for ``grammar/rw1.lark``."""
    text = grammar_text()
    comments = _comment_lines(text)
    by_rulename = {rulename(k): v for k, v in comments.items()}
    lines = [
        "; RW1 line grammar in ABNF (RFC 5234), generated from grammar/rw1.lark",
        "; by `rogerwilco grammar --abnf`. Do not edit: the Lark grammar is the source.",
        "; Characters are Unicode code points; %x10FFFF is one character.",
        "; Quoted strings here hold no letters, so ABNF's case-insensitive strings",
        "; match exactly; letters are written as %x values.",
        "",
    ]
    for name, body in definitions(text):
        for comment in by_rulename.get(name, []):
            lines.append(f"; {comment}".rstrip())
        lines.extend(_wrap(name, body))
        lines.append("")
    # RFC 5234 (2.2, 4): a rule ends in CRLF; strict ABNF tools read nothing else.
    return "\r\n".join(lines).rstrip("\r\n") + "\r\n"


def rules_of(document: str) -> dict[str, str]:
    """Each rule of an ABNF document as written in it (its first line and the
    indented lines that continue it, comments left out), keyed by rulename."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in document.splitlines():
        if line[:1] in (" ", "\t") and current is not None:
            current.append(line)
        elif " = " in line and not line.startswith(";"):
            current = found.setdefault(line.split(" = ", 1)[0], [line])
        else:
            current = None
    return {name: "\r\n".join(lines) + "\r\n" for name, lines in found.items()}


def excerpt(names: list[str]) -> str:
    """The rules ``names`` of the ABNF document, in the order given (what
    ``rogerwilco grammar --abnf --rule NAME`` prints). Raises AbnfError for a
    name the document does not define."""
    rules = rules_of(render())
    missing = [name for name in names if name not in rules]
    if missing:
        raise AbnfError(f"no rule {missing[0]!r} in the ABNF; its rules are {' '.join(rules)}")
    return "".join(rules[name] for name in names)
