# Atomic JSON files: round trip, missing, corrupt and foreign files; runs under MicroPython
# and CPython in a scratch directory.
import os

from mancala_fw import storage

# The MicroPython unix port has no tempfile: a name of our own, unique to this run.
DIR = "/tmp/mancala_storage_scratch_%d" % (os.urandom(1)[0] * 65536 + os.urandom(1)[0] * 256
                                            + os.urandom(1)[0])


def _fresh():
    try:
        os.mkdir(DIR)
    except OSError:
        pass
    for name in os.listdir(DIR):
        os.remove(DIR + "/" + name)
    return DIR + "/settings.json"


def test_round_trip_and_no_temp_left():
    path = _fresh()
    storage.save(path, {"format": "x", "n": [1, 2]})
    assert storage.load(path, "x") == ({"format": "x", "n": [1, 2]}, None)
    storage.save(path, {"format": "x", "n": 3})
    assert storage.load(path, "x")[0]["n"] == 3
    assert os.listdir(DIR) == ["settings.json"]


def test_missing_file_is_no_problem():
    path = _fresh()
    assert storage.load(path, "x") == (None, None)


def test_corrupt_file_is_reported_not_raised():
    path = _fresh()
    f = open(path, "w")
    f.write('{"format": "x", "n": [1, 2')  # cut off mid-write
    f.close()
    obj, problem = storage.load(path, "x")
    assert obj is None and "corrupt" in problem and path in problem


def test_binary_garbage_is_reported():
    path = _fresh()
    f = open(path, "wb")
    f.write(bytes([0xFF, 0xFE, 0x00, 0x80]) * 10)
    f.close()
    obj, problem = storage.load(path, "x")
    assert obj is None and problem


def test_wrong_format_is_reported():
    path = _fresh()
    storage.save(path, {"format": "other"})
    obj, problem = storage.load(path, "x")
    assert obj is None and "not a x file" in problem
    storage.save(path, [1, 2])
    assert storage.load(path, "x")[0] is None


def test_leftover_temp_file_does_not_matter():
    # a power cut after writing the temp file but before the rename leaves both
    path = _fresh()
    storage.save(path, {"format": "x", "n": 1})
    f = open(path + ".tmp", "w")
    f.write("{half")
    f.close()
    assert storage.load(path, "x")[0]["n"] == 1
    storage.save(path, {"format": "x", "n": 2})
    assert storage.load(path, "x")[0]["n"] == 2
    storage.remove(path)
    storage.remove(path)
    assert storage.load(path, "x") == (None, None)


def test_a_removal_that_fails_raises_and_loses_nothing():
    # A save that fails raises OSError for its caller to report; so does a removal (here the
    # flash refuses it: a directory stands at the path). Only a missing file is no error.
    path = _fresh()
    os.mkdir(path)
    f = open(path + "/kept.json", "w")
    f.write("{}")
    f.close()
    try:
        try:
            storage.remove(path)
            raised = False
        except OSError:
            raised = True
        assert raised
        assert os.listdir(path) == ["kept.json"]
    finally:
        os.remove(path + "/kept.json")
        os.rmdir(path)
    storage.remove(path)  # gone already: nothing to do
