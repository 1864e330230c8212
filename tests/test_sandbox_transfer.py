"""The pieces under both backends: bounded output and paths that must stay inside the workspace."""

from __future__ import annotations

import io
import tarfile

import pytest

from taskforge.sandbox.output import TailBuffer
from taskforge.sandbox.transfer import extract_plain, relative_inside


def test_tail_buffer_keeps_exactly_the_last_bytes():
    buffer = TailBuffer(limit=10)
    for chunk in (b"0123", b"45678", b"9abcdef", b"", b"ghij"):
        buffer.write(chunk)

    assert buffer.text() == "abcdefghij"


def test_tail_buffer_cuts_a_single_large_chunk():
    buffer = TailBuffer(limit=4)
    buffer.write(b"x" * 100 + b"tail")

    assert buffer.text() == "tail"


@pytest.mark.parametrize("path, expected", [("out/a.txt", "out/a.txt"), ("/workspace/out", "out"),
                                            ("./out/../b", "b"), ("/workspace", ".")])
def test_paths_inside_the_workspace_are_normalised(path, expected):
    assert str(relative_inside(path, "/workspace")) == expected


@pytest.mark.parametrize("path", ["../secret", "/etc/passwd", "out/../../x", "/workspace/../etc"])
def test_paths_leaving_the_workspace_are_refused(path):
    with pytest.raises(ValueError):
        relative_inside(path, "/workspace")


def test_archives_from_a_sandbox_unpack_plain_files_only(tmp_path):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as tar:
        for name, kind, target in [("ok.txt", tarfile.REGTYPE, ""), ("../escape.txt", tarfile.REGTYPE, ""),
                                   ("link", tarfile.SYMTYPE, "/etc/passwd"), ("hard", tarfile.LNKTYPE, "ok.txt"),
                                   ("dev", tarfile.CHRTYPE, "")]:
            member = tarfile.TarInfo(name)
            member.type, member.linkname = kind, target
            payload = b"data" if kind == tarfile.REGTYPE else b""
            member.size = len(payload)
            tar.addfile(member, io.BytesIO(payload))
    data.seek(0)

    kept = extract_plain(data, tmp_path / "dest")

    assert kept == 1
    assert [p.name for p in (tmp_path / "dest").iterdir()] == ["ok.txt"]
    assert not (tmp_path / "escape.txt").exists()
