"""nvmesim._files: JSON read with one error naming why, files written atomically."""

import os
import stat

import pytest

from nvmesim._files import atomic_open, read_json, write_text


def test_write_replaces_only_on_success(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("previous run\n")
    with pytest.raises(RuntimeError):
        with atomic_open(target) as out:
            out.write("half of it")
            raise RuntimeError("failed half-way")
    assert target.read_text() == "previous run\n"
    assert os.listdir(tmp_path) == ["out.json"]
    write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["out.json"]


def test_new_files_get_the_umasks_mode_and_links_are_followed(tmp_path):
    umask = os.umask(0o022)
    try:
        write_text(tmp_path / "new.txt", "x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o644
    (tmp_path / "link.txt").symlink_to("new.txt")
    write_text(tmp_path / "link.txt", "through the link")
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "new.txt").read_text() == "through the link"


def test_devices_are_written_in_place():
    write_text("/dev/null", "nothing")
    with pytest.raises(OSError):
        write_text("/dev/full", "x" * 100000)


def test_an_unwritable_directory_fails_before_anything_is_written(tmp_path):
    with pytest.raises(OSError):
        with atomic_open(tmp_path / "missing" / "out.json"):
            pytest.fail("the block must not run")


def test_read_json_says_why(tmp_path):
    class Bad(Exception):
        pass
    cases = {b"{": "not JSON (line 1", b"\xff": "not UTF-8 text (byte 0)",
             b"NaN": "NaN is not a JSON number", b"[" * 100000: "not JSON",
             b'{"a": 1, "b": {"k": 1, "k": 2}}': "key 'k' appears twice in one object",
             b'{"a": 1}\x00junk': "a NUL byte at offset 8"}
    for data, words in cases.items():
        (tmp_path / "f.json").write_bytes(data)
        with pytest.raises(Bad, match=None) as info:
            read_json(tmp_path / "f.json", Bad)
        assert words in str(info.value)
    with pytest.raises(Bad, match="cannot read"):
        read_json(tmp_path / "missing.json", Bad)
    (tmp_path / "f.json").write_text('{"a": [1, 2.5]}')
    assert read_json(tmp_path / "f.json", Bad) == {"a": [1, 2.5]}


def test_output_directories_are_never_empty(tmp_path):
    import os
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    for module in ("nvmesim.compare", "nvmesim.ab"):
        done = subprocess.run([sys.executable, "-m", module, "x.json", "-o", ""], cwd=tmp_path,
                              capture_output=True, text=True, env=env)
        assert done.returncode == 2, done.stderr
        assert "-o/--out: must name a directory, got an empty path" in done.stderr
        assert "Traceback" not in done.stderr
        assert list(tmp_path.iterdir()) == []  # nothing written
