"""lsp: the language server for editors (stdio)."""

from __future__ import annotations

import argparse

from ...core.errors import RW1Error


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "lsp", help="run the language server for editors over stdio (the lsp extra)",
        description="Serve the Language Server Protocol over standard input and output: lint diagnostics as you "
                    "type under the configuration lint uses for each file (pulled or pushed), hover from the "
                    "vocabulary, completion of keys and codes, quick fixes, go to definition and references of "
                    "message ids, and one symbol per message, for .rw1 files and the RW1 lines inside logs and "
                    "Markdown.",
        epilog="examples:\n  rogerwilco lsp                 (started by the editor; see docs/lint.md)\n\n"
               "exit codes: 0 when the client ends the session, 2 when the lsp extra is not installed.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=cmd_lsp)


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        from ..lsp import main
    except ImportError as exc:
        raise RW1Error(f"the language server needs the lsp extra ({exc.name} is missing): "
                       "pip install 'rogerwilco[lsp]'") from None
    main()
    return 0
