"""``rogerwilco validate``'s quick path (rogerwilco.front.quick, rogerwilco.core.verdict).

The quick path says "valid" of a line only where ``validate`` itself counts it
valid with nothing to report, under the bundled profiles: over the written
lines, both corpora, their hostile variants and generated mutants, a line the
verdict takes is one the full pass accepts with no finding at all. Its tables
are the vocabulary's (derived again here); where it settles a run, the
command writes the same summary and exits the same; where it does not, it has
read nothing from stdin and written nothing; and a run it settles loads
neither attrs nor the vocabulary.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rogerwilco.core import scanner as scanner_module
from rogerwilco.core import verdict as verdict_module
from rogerwilco.core.semantics import check_line
from rogerwilco.core.vocab import Receiver
from rogerwilco.front import cli, quick

from .bounds import HANG
from .strategies import mutated_lines
from .test_accept import _bench, corpus
from .test_scanner import FUZZ, _hostile_variants, _written_lines, scan  # noqa: F401 - scan: the fixture

ROOT = Path(__file__).resolve().parents[1]
BUNDLED = Receiver.all_bundled()
VALID = "RW1 HO research-01 from=research to=writer item=gh:crox/site#42 ask=DRAFT due=20261002 pri=2"
PAID = "RW1 HO scheduler-1 from=scheduler to=payer item=inv:7 ask=PAY p=pay rb=exec amt=110.00 net=100.00 vat=10.00 cur=EUR"


@pytest.fixture(scope="module")
def verdicts(scan) -> verdict_module.Verdicts:  # noqa: F811 - the fixture imported above
    """The verdicts made from the shipped tables with the scanner the tests use (built here where it is not)."""
    from rogerwilco.core._verdict_tables import CORE, PROFILES

    return verdict_module.Verdicts(scan.scan, CORE, PROFILES)


def takes(verdicts: verdict_module.Verdicts, line: str) -> bool:
    """The property: a line the verdict takes is valid under the bundled profiles, with no finding at all."""
    if not verdicts(line):
        return False
    full = check_line(line, BUNDLED, line_number=1)
    assert full.valid and full.message is not None, (line, full.findings)
    assert not full.findings, (line, full.findings)
    return True


def test_the_tables_are_the_vocabularys(scan) -> None:  # noqa: F811
    """_verdict_tables.py is what the core vocabulary and the bundled profiles give (python -m
    rogerwilco.core.scanner --write regenerates it), the same text in every run."""
    shipped = Path(scanner_module.VERDICT_TABLES).read_text(encoding="utf-8")
    assert shipped == scanner_module.verdict_tables(scan.scan), "stale: python -m rogerwilco.core.scanner --write"
    from rogerwilco.core._verdict_tables import CORE, PROFILES

    assert set(PROFILES) == set(BUNDLED.names) and {"HO", "RB", "DN"} <= set(CORE)


def test_written_lines_and_both_corpora_agree(verdicts) -> None:
    lines = _written_lines() + corpus(2000) + _bench.corpora(["realistic"], 3000, False)["realistic"]
    taken = sum(takes(verdicts, line) for line in lines)
    assert taken > 3000


@pytest.mark.parametrize("held", [(), ("pay",), ("clin", "pform"), ("deploy",)])
def test_a_receiver_holding_fewer_profiles_agrees(scan, held) -> None:  # noqa: F811
    """``--core-only`` and ``--profile NAME``: the verdict made for the profiles held takes only lines the full
    pass, under a receiver holding those, has nothing to say of."""
    from rogerwilco.core._verdict_tables import CORE, PROFILES

    verdicts = verdict_module.Verdicts(scan.scan, CORE, {name: PROFILES[name] for name in held})
    receiver = Receiver.load(list(held))
    lines = _written_lines() + _bench.corpora(["realistic"], 1500, False)["realistic"]
    taken = 0
    for line in lines:
        if verdicts(line):
            taken += 1
            full = check_line(line, receiver, line_number=1)
            assert full.valid and not full.findings, (line, held, full.findings)
    assert taken > 300


def test_the_verdict_settles_most_of_what_the_quiet_scanner_does(scan, verdicts) -> None:  # noqa: F811
    """Plans made from data decline what only a Python decoder or a rule's closure settles: few lines."""
    lines = _bench.corpora(["realistic"], 3000, False)["realistic"] + corpus(1000)
    quiet = [line for line in lines if scan.scan.accept(line, BUNDLED, 1, None, True) is not None]
    taken = [line for line in quiet if verdicts(line)]
    assert len(quiet) > 2000
    assert len(taken) / len(quiet) >= 0.9, len(taken) / len(quiet)
    assert all(scan.scan.accept(line, BUNDLED, 1, None, True) is not None for line in lines if verdicts(line))


def test_hostile_variants_agree(verdicts) -> None:
    lines = _bench.corpora(["realistic"], 200, False)["realistic"][:80] + [VALID, PAID]
    for line in lines:
        for variant in _hostile_variants(line):
            takes(verdicts, variant)


@FUZZ
@given(mutated_lines())
def test_mutated_lines_agree(verdicts, line) -> None:
    takes(verdicts, line)


def test_what_the_verdict_leaves_to_the_package(verdicts) -> None:
    assert verdicts(VALID) and verdicts(PAID)
    noted = [VALID + " zz=1", VALID + " why=BUSY", VALID + " p=nosuch"]
    refused = [VALID.replace("ask=DRAFT", "ask=DEPLOY"), VALID.replace("research-01", "writer-01"),
               PAID.replace("amt=110.00", "amt=111.00"), "RW1 HO x", "", VALID + " "]
    for line in noted + refused:
        assert not verdicts(line), line
        assert check_line(line, BUNDLED).findings, line  # each has something to say: the package says it


# ---- the command: the same answer either way --------------------------------

def _command(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _quick(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int | None, str, str]:
    code = quick.quick_validate(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def scanner_in_use(scan, monkeypatch):  # noqa: F811
    """verdict.load() with the tests' scanner, whatever RW1_PURE says (the quick path itself is tested here)."""
    import rogerwilco.core as core

    monkeypatch.delenv("RW1_PURE", raising=False)
    monkeypatch.setitem(sys.modules, "rogerwilco.core._scan", scan.scan)
    monkeypatch.setattr(core, "_scan", scan.scan, raising=False)
    assert verdict_module.load() is not None


def _files(tmp_path: Path) -> dict[str, bytes]:
    realistic = _bench.corpora(["realistic"], 60, False)["realistic"]
    cases = {
        "valid.rw1": (VALID + "\n").encode(),
        "two.rw1": f"{VALID}\n{PAID}".encode(),
        "realistic.rw1": "\n".join(realistic).encode() + b"\n",
        "noted.rw1": f"{VALID}\n{VALID} zz=1\n".encode(),
        "refused.rw1": f"{VALID}\nRW1 HO x\n".encode(),
        "blank.rw1": f"{VALID}\n\n{VALID}\n".encode(),
        "crlf.rw1": f"{VALID}\r\n{VALID}\r\n".encode(),
        "bare-cr.rw1": f"{VALID}\r{VALID}\n".encode(),
        "bom.rw1": b"\xef\xbb\xbf" + (VALID + "\n").encode(),
        "latin1.rw1": (VALID + " // caf\xe9\n").encode("latin-1"),
        "empty.rw1": b"",
        "two-ends.rw1": (VALID + "\n\n").encode(),
        "app.log": (VALID + "\n").encode(),
        "big.rw1": ((VALID + "\n") * (quick.QUICK_MAX_BYTES // len(VALID) + 1)).encode(),
        "tail.rw1": (VALID + " // résumé für 日本 \U0001f600\n").encode(),
        "control.rw1": (VALID + " // a\x0bb\n").encode(),
        "separator.rw1": (VALID + " // a\u2028b\n").encode(),
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    return cases


def test_the_command_answers_the_same_either_way(tmp_path, capsys, monkeypatch, scanner_in_use) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    names = list(_files(tmp_path))
    runs = [[name] for name in names] + [["valid.rw1", "two.rw1"], ["valid.rw1", VALID], [VALID], [PAID, VALID],
                                          ["valid.rw1", "refused.rw1"], ["nosuch.rw1"], ["."], ["valid.rw1", "-"],
                                          [VALID + "\n"], [VALID + " zz=1"], ["valid.rw1", "--quiet"],
                                          ["-q", "valid.rw1", "--strict"], ["--strict", "noted.rw1"],
                                          ["--quiet", "noted.rw1"], ["--format", "json", "valid.rw1"],
                                          ["--core-only", "two.rw1"], ["--stric", "valid.rw1"],
                                          ["--core-only", "valid.rw1"], ["-p", "pay", "two.rw1"],
                                          ["--profile=clin", "two.rw1"], ["--profile", "clin", "valid.rw1"],
                                          ["-p", "nosuch", "valid.rw1"], ["-p", "pay", "--core-only", "two.rw1"],
                                          ["-ppay", "valid.rw1"], ["--prof", "pay", "valid.rw1"], ["-p"],
                                          ["valid.rw1", "-p"], ["-p", "pay", "-p", "clin", "realistic.rw1"],
                                          ["-p", "../pay.json", "valid.rw1"]]
    settled = 0
    for files in runs:
        argv = ["validate", *files]
        code, out, err = _quick(argv, capsys)
        if code is None:
            assert (out, err) == ("", ""), argv  # nothing written: the command answers
            continue
        settled += 1
        assert (code, out, err) == _command(argv, capsys), argv
    assert settled >= 14
    for files in (["valid.rw1"], ["realistic.rw1"], ["tail.rw1"], [VALID], ["valid.rw1", "two.rw1", PAID]):
        assert quick.quick_validate(["validate", *files]) == 0, files
    for files in (["--quiet", "valid.rw1", "--strict"], ["--core-only", "valid.rw1"], ["-p", "pay", "two.rw1"],
                  ["--profile=clin", "--profile", "pay", "valid.rw1"]):
        assert quick.quick_validate(["validate", *files]) == 0, files
    for files in (["noted.rw1"], ["refused.rw1"], ["big.rw1"], ["crlf.rw1"], ["bom.rw1"], ["empty.rw1"],
                  ["--core-only", "two.rw1"], ["-p", "clin", "two.rw1"], ["--format=json", "valid.rw1"],
                  ["-p", "nosuch", "valid.rw1"], ["-ppay", "valid.rw1"]):
        assert quick.quick_validate(["validate", *files]) is None, files
    capsys.readouterr()


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)), encoding="utf-8"))


def test_standard_input_is_judged_and_given_back_whole(capsys, monkeypatch, scanner_in_use) -> None:
    """Settled where every line is sure; else the command reads all of it, from its start, and answers as it
    answers a fresh standard input."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    realistic = "\n".join(_bench.corpora(["realistic"], 40, False)["realistic"]).encode()
    v, p = VALID.encode(), PAID.encode()
    inputs = [v + b"\n", v, v + b"\n" + p + b"\n", realistic + b"\n", realistic, (v + b"\n") * 2000,
              v + b"\nRW1 HO x\n" + v + b"\n", b"RW1 HO x\n" + v, b"", b"\n", v + b"\n\n" + v, v + b"\r\n",
              b"\xef\xbb\xbf" + v + b"\n", v + b" // caf\xe9\n", v + b" zz=1\n", (v + b"\n") * 700 + b"RW1 HO x\n"]
    settled = 0
    for data in inputs:
        for argv in (["validate"], ["validate", "-"]):
            _stdin(monkeypatch, data)
            code, out, err = _quick(argv, capsys)
            if code is None:
                assert (out, err) == ("", ""), data[:80]
                code, out, err = _command(argv, capsys)  # on what the quick path gave back
            else:
                settled += 1
            _stdin(monkeypatch, data)
            assert (code, out, err) == _command(argv, capsys), data[:80]
    assert settled == 10
    for data in inputs:
        _stdin(monkeypatch, data)
        if quick.quick_validate(["validate"]) is None:
            assert sys.stdin.buffer.read() == data
    capsys.readouterr()


def test_only_plain_output_is_settled(tmp_path, capsys, monkeypatch, scanner_in_use) -> None:
    """A terminal or forced colour: the command's console styles the summary, so the command writes it."""
    (tmp_path / "valid.rw1").write_text(VALID + "\n", encoding="utf-8")
    argv = ["validate", str(tmp_path / "valid.rw1")]
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert quick.quick_validate(argv) is None
    monkeypatch.setenv("NO_COLOR", "1")
    assert quick.quick_validate(argv) == 0
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setattr(sys, "stdout", type("Tty", (io.StringIO,), {"isatty": lambda self: True})())
    assert quick.quick_validate(argv) is None
    assert sys.stdout.getvalue() == ""


def test_no_scanner_or_rw1_pure_leaves_it_to_the_command(tmp_path, monkeypatch) -> None:
    (tmp_path / "valid.rw1").write_text(VALID + "\n", encoding="utf-8")
    monkeypatch.setenv("RW1_PURE", "1")
    assert verdict_module.load() is None
    assert quick.quick_validate(["validate", str(tmp_path / "valid.rw1")]) is None
    monkeypatch.delenv("RW1_PURE")
    import rogerwilco.core as core

    monkeypatch.setitem(sys.modules, "rogerwilco.core._scan", None)  # not built: the import fails
    monkeypatch.delattr(core, "_scan", raising=False)
    assert verdict_module.load() is None


def _run(argv: list[str], cwd: Path, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m rogerwilco ARGV``, saying on stderr whether attrs was loaded."""
    probe = ("import sys, runpy\nsys.argv = ['rogerwilco', *sys.argv[1:]]\ntry:\n"
             "    runpy.run_module('rogerwilco', run_name='__main__')\nfinally:\n"
             "    sys.stderr.write('loaded attrs: %s\\n' % ('attr' in sys.modules))\n")
    environ = {k: v for k, v in os.environ.items() if k not in ("RW1_PURE", "FORCE_COLOR")}
    environ.update(env, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", probe, *argv], cwd=cwd, env=environ, capture_output=True,
                          text=True, timeout=HANG, input=stdin)


def test_a_run_it_settles_loads_neither_attrs_nor_the_vocabulary(tmp_path) -> None:
    """Where the scanner is built (CI builds it: RW1_EXPECT_COMPILED), ``rogerwilco validate`` of valid lines
    never loads attrs; a refused line is answered by the command, worded as ever."""
    (tmp_path / "valid.rw1").write_text(f"{VALID}\n{PAID}\n", encoding="utf-8")
    (tmp_path / "bad.rw1").write_text("RW1 HO x\n", encoding="utf-8")
    built = verdict_module.load() is not None or os.environ.get("RW1_EXPECT_COMPILED", "") not in ("", "0")
    done = _run(["validate", "valid.rw1"], tmp_path)
    assert (done.returncode, done.stdout) == (0, "2 lines, 2 valid, 0 refused, 0 notes\n"), done.stderr
    assert done.stderr == f"loaded attrs: {not built}\n"
    pure = _run(["validate", "valid.rw1"], tmp_path, RW1_PURE="1")
    assert (pure.returncode, pure.stdout, pure.stderr) == (0, done.stdout, "loaded attrs: True\n")
    bad = _run(["validate", "bad.rw1"], tmp_path)
    assert bad.returncode == 1 and "1 line, 0 valid, 1 refused, 0 notes" in bad.stdout
    assert "expected a message id" in bad.stdout and bad.stderr.endswith("loaded attrs: True\n")
    piped = _run(["validate"], tmp_path, stdin=f"{VALID}\n{PAID}\n")
    assert (piped.returncode, piped.stdout, piped.stderr) == (0, done.stdout, done.stderr)
    mixed = _run(["validate", "-"], tmp_path, stdin=f"{VALID}\nRW1 HO x\n{PAID}")
    assert mixed.returncode == 1 and mixed.stdout.endswith("3 lines, 2 valid, 1 refused, 0 notes\n")
    assert mixed.stdout.startswith("<stdin>:2:8: fail") and mixed.stderr == "loaded attrs: True\n"


def test_version_alone_is_answered_without_the_command(tmp_path, capsys) -> None:
    """``rogerwilco --version`` prints the command's line, without loading argparse or attrs."""
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    said = capsys.readouterr().out
    assert said == quick.VERSION_LINE + "\n" and said.startswith("rogerwilco ")
    done = _run(["--version"], tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, said, "loaded attrs: False\n")


@pytest.mark.parametrize("pure", ["", "1"])
def test_a_closed_stream_is_no_error(tmp_path, pure) -> None:
    """Started with stdout or stdin closed (``>&-``, ``<&-``), the command writes nowhere or reads nothing, and its
    exit status says what it found, with or without the quick path."""
    (tmp_path / "valid.rw1").write_text(VALID + "\n", encoding="utf-8")
    (tmp_path / "bad.rw1").write_text("RW1 HO x\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RW1_PURE": pure}
    for args, closed, status in [("validate valid.rw1", ">&-", 0), ("validate bad.rw1", ">&-", 1),
                                 ("--version", ">&-", 0), ("validate", "<&-", 0), ("validate -", "<&-", 0),
                                 ("validate valid.rw1", "<&-", 0), ("validate bad.rw1", "2>&- >&-", 1)]:
        done = subprocess.run(["sh", "-c", f"exec {sys.executable} -m rogerwilco {args} {closed}"], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=HANG)
        assert done.returncode == status and "Traceback" not in done.stderr, (args, closed, done.stderr)
        assert "error" not in done.stderr, (args, closed, done.stderr)


def test_import_rogerwilco_is_light_and_its_names_are_there() -> None:
    """``import rogerwilco`` loads neither attrs nor typing; every documented name is there on first use."""
    code = ("import sys, rogerwilco\nlight = not {'attr', 'typing'} & set(sys.modules)\n"
            "names = [getattr(rogerwilco, n) for n in rogerwilco.__all__]\n"
            "from rogerwilco import *\nprint(light, rogerwilco.Message is Message, RW1Error.__name__,"
            " loads(%r).type)" % VALID)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stdout) == (0, "True True RW1Error HO\n"), done.stderr


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([VALID, PAID, VALID + " zz=1", "RW1 HO x", ""]), min_size=1, max_size=6))
def test_any_mix_of_lines_is_answered_as_the_command_answers(verdicts, lines) -> None:
    """The quick path settles a run exactly when every line is one the full pass has nothing to say of."""
    assert all(map(verdicts, lines)) == all(not check_line(line, BUNDLED).findings and line for line in lines)
