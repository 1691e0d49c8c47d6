"""Everything this package takes from Lark, in one place.

Theory of operation
-------------------
Lark reads ``grammar/rw1.lark`` and parses the lines the fast path does not
accept (to say precisely why they are refused). Its public API covers that:
:class:`Lark`, the tokens and trees, the exceptions. Two things come from
Lark's internals, because Lark offers no public way to them:

=========================  ==================================================
what                       Lark internal, and who reads it
=========================  ==================================================
:func:`grammar_file_tree`  ``load_grammar._parse_grammar``: the grammar
                           file's own syntax tree (rules and terminals as
                           written). The ABNF rendering, the JSON form
                           schema and the portability test read it.
:func:`rule_tree`          ``GrammarBuilder._definitions``: the EBNF tree of
                           one rule, from which the fast path's whole-line
                           regex is derived.
=========================  ==================================================

Nothing else in the package (or its tests) imports ``lark``. The version is
bounded in ``pyproject.toml`` to the major tested here (:data:`TESTED_MAJOR`);
a Lark that moves an internal breaks this module's tests, in one place.

Importing this module imports Lark. Modules on the path of a valid line
import it lazily, inside the function that needs it, so reading a valid line
never loads Lark.
"""

from __future__ import annotations

from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.load_grammar import GrammarBuilder, _parse_grammar

__all__ = [
    "TESTED_MAJOR", "Lark", "Token", "Tree", "UnexpectedCharacters", "UnexpectedEOF", "UnexpectedInput",
    "UnexpectedToken", "grammar_file_tree", "lalr_parser", "rule_tree",
]

TESTED_MAJOR = 1  # pyproject.toml: lark>=1.1.9,<2


def lalr_parser(grammar: str) -> Lark:
    """The grammar as an LALR parser with the contextual lexer (the one the package reads lines with)."""
    return Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=False)


def grammar_file_tree(grammar: str, name: str = "rw1.lark") -> Tree[Any]:
    """The grammar file's own syntax tree: ``rule``/``term`` items as written, literals as
    ``REGEXP``/``STRING`` tokens (Lark's ``load_grammar._parse_grammar``)."""
    tree: Tree[Any] = _parse_grammar(grammar, name)  # type: ignore[no-untyped-call]  # lark's parser is untyped
    return tree


def rule_tree(grammar: str, rule: str, name: str = "rw1.lark") -> Tree[Any]:
    """The EBNF tree (``expansions``/``expansion``/``expr``/``value``) of one rule, templates and
    imports resolved (Lark's ``GrammarBuilder._definitions``)."""
    builder = GrammarBuilder()
    builder.load_grammar(grammar, name)
    tree: Tree[Any] = builder._definitions[rule].tree
    return tree
