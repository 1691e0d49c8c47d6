"""Files named as configuration are read only when regular and under their cap (rogerwilco.core.files).

A repository lint is pointed at names its own profiles and baseline; a
command line names profiles, crosswalks, case files, value files. None of
them may hold the process on a device, a FIFO or a file of gigabytes: each is
refused before it is opened for reading, with the file and the reason.
"""

from __future__ import annotations

import os
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rogerwilco.checks.crosswalk import CrosswalkError, load_crosswalk
from rogerwilco.core import files
from rogerwilco.core.errors import ProfileError, RW1Error
from rogerwilco.core.files import read_limited
from rogerwilco.core.vocab import load_profile
from rogerwilco.front.cli import main
from rogerwilco.io.lint_config import load_config

HO = "RW1 HO ops-1 from=ops to=builder item=jira:OPS-7 ask=FIX rb=plan"


@pytest.fixture
def fifo(tmp_path):
    """A FIFO no one writes to: opening it for reading the ordinary way would block for ever."""
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


def oversized(path, cap: int):
    """A sparse file one byte past ``cap``: its size is past the cap, yet it costs no disk."""
    with open(path, "wb") as fh:
        fh.truncate(cap + 1)
    return path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- the helper ---------------------------------------------------------------------------


def test_a_regular_file_under_its_cap_is_read_whole(tmp_path):
    path = tmp_path / "p.json"
    path.write_bytes(b"x" * 100)
    assert read_limited(path, what="profile", limit=100) == b"x" * 100


@pytest.mark.parametrize("name, kind", [("/dev/zero", "character device"), ("fifo", "FIFO"), ("dir", "directory")])
def test_what_is_not_a_regular_file_is_refused_naming_the_file_and_its_kind(tmp_path, fifo, name, kind):
    path = {"fifo": fifo, "dir": tmp_path}.get(name, name)
    with pytest.raises(RW1Error) as caught:
        read_limited(path, what="profile", limit=files.PROFILE_MAX_BYTES)
    assert str(path) in str(caught.value) and kind in str(caught.value) and "not a regular file" in str(caught.value)


def test_a_file_past_its_cap_is_refused_with_the_cap(tmp_path):
    path = oversized(tmp_path / "big.json", 1000)
    with pytest.raises(RW1Error, match=r"big\.json is larger than 1,000 bytes, the most a profile may be"):
        read_limited(path, what="profile", limit=1000)


def test_the_caps_are_those_documented():
    docs = (os.path.join(os.path.dirname(__file__), "..", "docs", "profiles.md"))
    text = open(docs, encoding="utf-8").read()
    for cap in (files.PROFILE_MAX_BYTES, files.CONFIG_MAX_BYTES, files.BASELINE_MAX_BYTES, files.DATA_MAX_BYTES):
        assert f"{cap // files.MIB} MiB" in text


# ---- every reader of configuration goes through it ----------------------------------------


@pytest.mark.parametrize("name", ["/dev/zero", "fifo", "oversized"])
def test_a_profile_by_path_is_refused(tmp_path, fifo, name):
    path = {"fifo": fifo, "oversized": oversized(tmp_path / "big.json", files.PROFILE_MAX_BYTES)}.get(name, name)
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("name", ["/dev/zero", "fifo"])
def test_validate_with_such_a_profile_exits_2_with_one_clear_error(capsys, fifo, name):
    path = str(fifo if name == "fifo" else name)
    code, _, err = run(capsys, "validate", "--profile", path, "-")
    assert code == 2 and path in err and "not a regular file" in err and "Traceback" not in err


def test_profile_check_refuses_such_a_file(capsys):
    code, _, err = run(capsys, "profile", "check", "/dev/zero")
    assert code != 0 and "/dev/zero" in err + capsys.readouterr().out


@pytest.mark.parametrize("key", ["profiles = [\"{}\"]", "baseline = \"{}\""])
@pytest.mark.parametrize("name", ["/dev/zero", "fifo"])
def test_a_linted_repository_naming_such_a_file_is_refused(capsys, tmp_path, monkeypatch, fifo, key, name):
    path = str(fifo if name == "fifo" else name)
    (tmp_path / "pyproject.toml").write_text("[tool.rogerwilco.lint]\n" + key.format(path) + "\n", encoding="utf-8")
    (tmp_path / "ok.rw1").write_text(HO + "\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "lint", "ok.rw1")
    assert code == 2 and path in err and "not a regular file" in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["/dev/zero", "fifo", "oversized"])
def test_a_lint_configuration_or_baseline_option_naming_such_a_file_is_refused(capsys, tmp_path, monkeypatch, fifo, name):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ok.rw1").write_text(HO + "\n", encoding="utf-8")
    for option, cap in (("--config", files.CONFIG_MAX_BYTES), ("--baseline", files.BASELINE_MAX_BYTES)):
        path = str({"fifo": fifo, "oversized": oversized(tmp_path / "big.toml", cap)}.get(name, name))
        code, _, err = run(capsys, "lint", option, path, "ok.rw1")
        assert code == 2 and path in err and "Traceback" not in err
        assert ("not a regular file" if name != "oversized" else "is larger than") in err


def test_load_config_refuses_a_fifo(fifo):
    with pytest.raises(RW1Error, match="FIFO"):
        load_config(fifo)


def test_a_crosswalk_and_value_files_are_refused(capsys, fifo):
    with pytest.raises(CrosswalkError, match="not a regular file"):
        load_crosswalk(str(fifo))
    code, _, err = run(capsys, "make-rb", "--ho", HO, "--n", "1", "--values", "/dev/zero")
    assert code == 2 and "/dev/zero" in err and "not a regular file" in err and "Traceback" not in err


def test_a_case_file_in_a_suite_is_refused(capsys, tmp_path):
    area = tmp_path / "suite" / "parse"
    area.mkdir(parents=True)
    os.mkfifo(area / "cases.json")
    code, _, err = run(capsys, "conformance", "--suite", str(tmp_path / "suite"),
                       "--impl", f"{sys.executable} -m rogerwilco adapter")
    assert code == 2 and "cases.json" in err and "FIFO" in err and "Traceback" not in err


@given(st.lists(st.sampled_from(["a", ".", "..", "rw1", ".rw1", "RW1", "x.Rw1", "/", "//", "b.c", " "]), max_size=6).map("".join))
def test_a_stream_file_is_told_by_pathlibs_suffix_without_importing_pathlib(name):
    """``is_stream_file`` reads the suffix as ``pathlib`` does (the last part's last dot, not a leading one)."""
    from pathlib import PurePosixPath

    expected = name in ("-", "<stdin>", "<stream>") or PurePosixPath(name).suffix.lower() == ".rw1"
    assert files.is_stream_file(name) == expected


def test_validate_of_a_refused_file_does_not_import_lint(tmp_path):
    """The hint after a refused file's lines asks only the file's suffix: ``io.lint`` (and ``pathlib``,
    ``hashlib``, ``sqlite3`` behind it) stay out of a one-line ``validate``."""
    import subprocess

    code = ("import sys; from rogerwilco.front.cli import main; rc = main(['validate', sys.argv[1]]); "
            "print(sorted(m for m in ('rogerwilco.io.lint', 'sqlite3', 'hashlib') if m in sys.modules), rc)")
    path = tmp_path / "app.log"
    path.write_text("RW1 HO ops-1 from=ops  to=builder item=jira:OPS-7 ask=FIX\n", encoding="utf-8")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "[] 1"
    assert "is not an RW1 stream (.rw1)" in out.stderr
