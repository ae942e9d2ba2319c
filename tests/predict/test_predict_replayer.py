"""Where `gridscope predict` gets its SMPI replayer (src/gridscope/predict/replay.py): the
installed binary when its key names the current inputs, else a build of its own in the
cache, made once per key."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from gstest import REPO

from gridscope import native
from gridscope.errors import GridscopeError
from gridscope.predict import replay


def test_cmake_and_python_agree_on_the_key(tmp_path):
    files = [tmp_path / "a", tmp_path / "b"]
    files[0].write_text("one\n")
    files[1].write_bytes(b"\x00two")
    out = tmp_path / "key"
    subprocess.run(["cmake", f"-DOUT={out}", f"-DINPUTS={files[0]}|{files[1]}", "-P",
                    str(REPO / "predictor" / "replayer_key.cmake")], check=True)
    assert out.read_text().strip() == replay.replayer_key(files)
    assert replay.replayer_key(files) != replay.replayer_key(files[::-1])  # order is part of it


def test_installed_cached_built(tmp_path):
    share, cache = tmp_path / "share", tmp_path / "cache"
    source = share / replay.SOURCE
    source.parent.mkdir(parents=True)
    shutil.copy(native.share_dir() / replay.SOURCE, source)
    for part in replay.PARTS:  # the parts the source includes (one translation unit)
        shutil.copy(native.share_dir() / replay.PREDICTOR_DIR / part, source.with_name(part))

    exe, how = replay.find_replayer(share, cache)
    assert how == replay.BUILT and exe.is_file()
    key = exe.parent.name
    assert exe.parent.parent == cache and len(key) == 64
    assert list(cache.iterdir()) == [exe.parent]  # no temporary build folder left
    assert replay.find_replayer(share, cache) == (exe, replay.CACHED)

    installed = share / replay.PREDICTOR_DIR / replay.BINARY
    shutil.copy(exe, installed)
    stamp = installed.with_name(replay.BINARY + replay.KEY_SUFFIX)
    stamp.write_text(key + "\n")
    assert replay.find_replayer(share, cache) == (installed, replay.INSTALLED)
    stamp.write_text("0" * 64 + "\n")  # built from other inputs: not used
    assert replay.find_replayer(share, cache) == (exe, replay.CACHED)

    source.write_text(source.read_text() + "/* changed */\n")
    other, how = replay.find_replayer(share, cache)
    assert how == replay.BUILT and other.parent.name != key

    part = source.with_name(replay.PARTS[-1])  # an included part is an input too
    part.write_text(part.read_text() + "/* changed */\n")
    third, how = replay.find_replayer(share, cache)
    assert how == replay.BUILT and third.parent.name not in (key, other.parent.name)

    part.unlink()
    with pytest.raises(GridscopeError):
        replay.find_replayer(share, cache)


def test_the_install_keys_the_same_inputs(tmp_path):
    """predictor/CMakeLists.txt installs and keys the same parts as PARTS: the installed
    replayer is the one predict uses."""
    share = native.share_dir()
    for part in replay.PARTS:
        assert (share / replay.PREDICTOR_DIR / part).is_file()
    if not (share / replay.PREDICTOR_DIR / replay.BINARY).is_file():
        pytest.skip("no replayer built at install (smpicc or the SMPI archive missing)")
    assert replay.find_replayer(share, tmp_path)[1] == replay.INSTALLED
