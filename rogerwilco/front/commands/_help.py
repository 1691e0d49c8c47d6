"""Help that teaches: each subcommand's description, two examples and exit codes.

Kept as data beside the commands so ``--help`` always shows all three, and
so the tests can run every example against the files shipped in
``examples/`` (docs that cannot drift). Examples run from the repository
root; they use no shell features.
"""

from __future__ import annotations

HO = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002"
RB = "RW1 RB writer-01 re=research-01 from=writer to=research item=gh:crox/site#42 ask=DRAFT due=20261002"
PAY_HO = ("RW1 HO scheduler-1 p=pay from=scheduler to=payer item=inv:MD-2026-057 ask=PAY rb=exec sup=marlow "
          "amt=5400.00 cur=GBP kind=GROSS acct=40-12-88/61102938 paid=20261002 ref=MD-2026-057 apref=FD-0929")
CLEAN = "0 clean, 1 findings (a refusal, a failed check), 2 usage error or unreadable input"

#: name -> (description, examples, exit codes)
HELP: dict[str, tuple[str, tuple[str, ...], str]] = {
    "parse": ("Read lines (a file, or stdin) and write each valid line's JSON form as a JSON Line on stdout. "
              "Every input line yields one result: a line that gives no JSON form is reported on stderr with its "
              "line, column and offending token (a refusal), or a note (a blank line, a bare CR).",
              ("rogerwilco parse examples/spec-section8.rw1", "rogerwilco parse --core-only examples/spec-section8.rw1"),
              CLEAN),
    "encode": ("Read JSON forms, one per line (what `parse` writes), and write each as its RW1 line. A form that "
               "cannot be a valid line is reported on stderr; reading goes on.",
               ("rogerwilco encode examples/forms.jsonl", "rogerwilco encode --profile pay examples/forms.jsonl"),
               CLEAN),
    "validate": ("Check every line of a file (or stdin), or one line given as the argument (it starts with "
                 "'RW1 '; a file of such a name is ./NAME), and print every finding with its place and a caret under "
                 "the offending token, then a summary. With --format json, one JSON record per input line; with "
                 "--strict, notes fail too.",
                 ("rogerwilco validate examples/spec-section8.rw1", f"rogerwilco validate '{HO}'"),
                 CLEAN),
    "digest": ("Print h= for a line: the first 12 hex digits of SHA-256 of its canonical JSON form. Give the "
               "line as an argument, or - to read one line from stdin.",
               (f"rogerwilco digest '{HO}'", f"rogerwilco digest --profile pay '{PAY_HO}'"),
               "0 printed, 1 the line is refused, 2 usage error (a file where the line goes)"),
    "to-json": ("Print a line's JSON form (the reference codec's form; `parse` reads a file of lines).",
                (f"rogerwilco to-json '{HO}'", f"rogerwilco to-json --profile pay '{PAY_HO}'"),
                "0 printed, 1 the line is refused, 2 usage error"),
    "from-json": ("Print the line of a JSON form given as text (the reference codec's form; `encode` reads a "
                  "file of forms). Malformed JSON is named with its line and column.",
                  ("rogerwilco from-json '{\"type\": \"HO\", \"id\": \"a-1\", \"from\": \"a\", \"to\": \"b\", "
                   "\"item\": \"x\", \"slots\": {\"ask\": \"FIX\"}}'",
                   "rogerwilco from-json --core-only '{\"type\": \"HO\", \"id\": \"a-1\", \"from\": \"a\", "
                   "\"to\": \"b\", \"item\": \"x\", \"slots\": {\"ask\": \"FIX\"}}'"),
                  "0 printed, 1 the form is refused or not JSON, 2 usage error"),
    "reply": ("Print the UN refusal a receiver sends for a line it must not guess at (nothing for a valid line). "
              "--as is the replying agent, --n its message number.",
              (f"rogerwilco reply --as writer --n 4 '{HO} pri=9'", f"rogerwilco reply --as writer --n 4 '{HO}'"),
              "0 the line is valid (nothing to reply), 1 a UN reply was printed, 2 the line cannot be addressed"),
    "lint": ("Lint message files as conversations: every line checked, plus the rules across a stream "
             "(RW001...: closed twice, acted before wilco, ...). Output as text, JSON, SARIF or GitHub annotations.",
             ("rogerwilco lint examples/spec-section8.rw1", "rogerwilco lint --format sarif examples/clin/faults.rw1"),
             "0 clean, 1 findings, 2 usage error"),
    "mcp": ("Serve RW1's tools to an agent over the Model Context Protocol on stdin/stdout. Register "
            "`rogerwilco mcp` as a stdio server with an MCP client. Needs the mcp extra: "
            "pip install 'rogerwilco[mcp]'. With --ledger and --as, session mode runs one agent's endpoint.",
            ("rogerwilco mcp", "rogerwilco mcp --ledger agent.db --as writer"),
            "0 the client closed the connection, 2 usage error or the mcp extra is missing"),
    "legend": ("Print the legend a model reads RW1 from, generated from the vocabulary: the core alone, or with "
               "a profile. --lean drops what the profile does not use.",
               ("rogerwilco legend --profile pay --lean", "rogerwilco legend --format md"),
               "0 printed, 2 an unknown profile"),
    "profile": ("Profile tools. `profile check FILE` prints every problem of a profile file with its JSON path.",
                ("rogerwilco profile check profiles/pay.json", "rogerwilco profile check profiles/clin.json"),
                "0 no problems, 1 problems, 2 the file cannot be read"),
    "check-src": ("Check each evidence line's verbatim tail against the document its src= cites (under --docs).",
                  ("rogerwilco check-src --docs examples/clin examples/clin/statements.rw1",
                   "rogerwilco check-src --docs examples/clin --format json examples/clin/statements.rw1"),
                  "0 every quote is verbatim, 1 a quote differs or a line is refused, 2 usage error"),
    "check-rb": ("Check a readback (RB) against its handoff (HO), tier by tier: receipt, integrity, echo, "
                 "comprehension (--expect-acc), execution (--record). WILCO when it passes every tier asked for; "
                 "a tier asked for but not checked is named in the verdict, and --strict makes that exit 1.",
                 (f"rogerwilco check-rb --ho '{HO}' --rb '{RB}'",
                  f"rogerwilco check-rb '{HO}' '{RB}'"),
                 "0 wilco, 1 void (or a tier not checked under --strict), 2 the handoff or an option is unusable"),
    "check-ho": ("Check a handoff against the approval record before it is sent: every value the record holds "
                 "must be in the line, and the line may carry no execution value the record does not hold.",
                 (f"rogerwilco check-ho --line '{PAY_HO}' --record examples/readback/05-record.json",
                  f"rogerwilco check-ho --format json --line '{PAY_HO}' --record examples/readback/05-record.json"),
                 "0 the handoff matches the record, 1 it does not, 2 unusable input"),
    "check-dn": ("Check a done report (DN) against the plan: the handoff, and the readback for values the "
                 "handoff left to the receiver.",
                 (f"rogerwilco check-dn --ho '{HO}' --dn 'RW1 DN writer-02 re=research-01 from=writer to=research "
                  "item=gh:crox/site#42 out=OK'",
                  f"rogerwilco check-dn --format json --ho '{HO}' --dn 'RW1 DN writer-02 re=research-01 from=writer "
                  "to=research item=gh:crox/site#42 out=OK'"),
                 "0 the done report matches the plan, 1 it does not, 2 unusable input"),
    "make-rb": ("Compose the readback of a handoff by code, from the line as delivered (the receiver's side). "
                "The reference codec's form gives the HO and the readback's id in order.",
                (f"rogerwilco make-rb --n 1 --ho '{HO}'", f"rogerwilco make-rb '{HO}' writer-1"),
                "0 printed, 2 the handoff cannot be read (1 in the form HO RB_ID, as the reference)"),
    "scan": ("Find RW1 lines wherever they sit in logs (plain, prefixed, Markdown, JSON Lines, Slack exports, "
             "compressed files, directories) and write one record per candidate: a message with its JSON form, "
             "or a diagnostic saying why it was refused.",
             ("rogerwilco scan examples/logs", "rogerwilco scan -f csv examples/logs/prefixed.log.gz"),
             "0 scanned, 1 a candidate was refused under --strict, 2 usage error"),
    "skill": ("Write an Agent Skill folder, OUT/<name>/SKILL.md: front matter (name, description), the legend "
              "generated from the vocabulary, and how to check lines with this package. For Claude Code, OUT is "
              "~/.claude/skills (every project) or .claude/skills (one project).",
              ("rogerwilco skill --out skills", "rogerwilco skill --profile pay --out skills"),
              "0 written, 2 an unknown profile or a folder that cannot be written"),
    "schema": ("Print the JSON Schema (2020-12) of the JSON form, generated from the vocabulary.",
               ("rogerwilco schema", "rogerwilco schema --profile pay"),
               "0 printed, 2 an unknown profile"),
    "check-thread": ("Rebuild the threads of a conversation (one line per message, in the order sent) and report "
                     "what did not close right: closed twice, acted before wilco, cancels, expiry; then who owns "
                     "what.",
                     ("rogerwilco check-thread --now 20261003T0000Z examples/spec-section8.rw1",
                      "rogerwilco check-thread --format json --now 20261003T0000Z examples/spec-section8.rw1"),
                     "0 every thread is sound, 1 findings that fail, 2 unusable input"),
    "report": ("Write one self-contained HTML audit report of a conversation (no network, no external asset): "
               "a sequence diagram of its messages with their findings, who owned each item when, every "
               "readback's tiers and diff, and check-thread's and lint's findings as a filterable table. "
               "--serve serves it on 127.0.0.1 instead.",
               ("rogerwilco report --now 20261003T0000Z examples/spec-section8.rw1 -o s8.html",
                "rogerwilco report --profile pay examples/readback/04-wrong-amount.rw1 -o void.html"),
               "0 written and every thread is sound, 1 written with findings that fail, 2 unusable input"),
    "tool": ("The tool's statement (spec 5.3): prepare a handoff's statement and relay its RB, commit it exactly "
             "once (the executor runs once), abandon or cancel it, see its status, resolve one left in doubt.",
             (f"rogerwilco tool prepare --store pay.db '{PAY_HO}'", "rogerwilco tool status --store pay.db"),
             "0 done, 1 refused or the act failed, 2 unusable input (an unknown token, a store that does not exist)"),
    "ledger": ("An agent's store as an operator sees it: status says per agent its last message number, what it "
               "owns, its open handoffs and its statements in doubt; migrate copies a store between a SQLite file "
               "and a PostgreSQL database, verified by row counts and digests.",
               ("rogerwilco ledger status --ledger payer.ledger",
                "rogerwilco ledger migrate --from payer.ledger --to postgresql://rw@db.internal:5432/agents"),
               "0 done, 2 unusable input (no store there, a store already at --to, a server that refuses)"),
    "adapter": ("The conformance adapter: read one JSON request per line on stdin and answer one JSON response per "
                "line on stdout (conformance/README.md). A request line longer than 1 MiB is answered with an "
                "error and serving goes on.",
                ("rogerwilco adapter", "rogerwilco conformance --impl 'rogerwilco adapter'"),
                "0 stdin closed"),
    "conformance": ("Run the language-neutral conformance cases against an adapter command (by default this "
                    "package's own) and report each case.",
                    ("rogerwilco conformance", "rogerwilco conformance --run 'readback/*'"),
                    "0 every case passes, 1 a case fails, 2 usage error or the adapter cannot be started"),
    "grammar": ("Print the RW1 grammar (grammar/rw1.lark), or with --abnf the RFC 5234 ABNF derived from it.",
                ("rogerwilco grammar", "rogerwilco grammar --abnf"),
                "0 printed"),
    "lsp": ("Serve the Language Server Protocol over standard input and output: lint diagnostics as you type, "
            "hover from the vocabulary, completion of keys and codes, quick fixes and one symbol per message, for "
            ".rw1 files and the RW1 lines inside logs and Markdown. The editor starts it (see docs/lint.md). "
            "Needs the lsp extra.",
            ("rogerwilco lsp", "rogerwilco lsp    (as the command of an editor's language server entry)"),
            "0 when the client ends the session, 2 when the lsp extra is not installed"),
    "completion": ("Print a shell completion script for bash, zsh, tcsh or fish, generated from the commands and "
                   "their options. Load it in your shell's start-up file. bash, zsh and tcsh need the completion "
                   "extra (shtab).",
                   ("rogerwilco completion bash", "rogerwilco completion fish"),
                   "0 printed, 2 an unknown shell or the completion extra not installed"),
}

#: the top-level help's groups, by task (a command in none is listed under "other")
TASKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("check lines and conversations", ("validate", "lint", "check-thread", "report", "scan")),
    ("read back and close a handoff", ("check-rb", "make-rb", "check-ho", "check-dn", "tool", "ledger")),
    ("convert lines", ("parse", "encode", "to-json", "from-json", "digest", "reply")),
    ("profiles, legends and skills", ("legend", "profile", "check-src", "schema", "skill", "grammar")),
    ("serve editors, agents and test suites", ("lsp", "mcp", "adapter", "conformance", "completion")),
)
WHICH = ("Which check: `validate` for lines one by one (a file of lines, or one line), as a receiver reads them; "
         "`lint` for files as conversations in CI (every line, plus the rules across the stream; logs and "
         "Markdown too; SARIF, annotations, a baseline); `check-thread` for one conversation's handoffs, with "
         "the ledger of who owns what.")

#: commands whose examples need what a test cannot give (a client on stdin, a server, a store to write)
NOT_RUN = {"mcp", "adapter", "tool", "conformance", "lsp", "ledger"}


def epilog(name: str) -> str | None:
    entry = HELP.get(name)
    if entry is None:
        return None
    _, examples, codes = entry
    lines = ["examples:", *(f"  {e}" for e in examples), "", f"exit codes: {codes}"]
    return "\n".join(lines)
