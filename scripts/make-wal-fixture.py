"""Writes the SQLite write-ahead-log fixtures of the rosbag2 .db3 tests
(src/recording/testing/wal/), with real SQLite (Python's sqlite3 module), so that the tests read
a log SQLite wrote, checked against what SQLite itself reads from it.

A small rosbag2 bag in WAL mode, as `ros2 bag record --storage-preset-profile resilient` keeps it:
20 messages checkpointed into the .db3, then 6 committed transactions of 12 messages each that are
only in the -wal file, then a transaction that spills pages into the log but is never committed
(the recorder killed mid-write). The files are copied while the writer still has them open, as a
crash leaves them.

fresh_0.db3: a bag recorded in WAL mode from its start and never checkpointed (a short recording
ends before SQLite's first automatic checkpoint, at 1000 pages): the .db3 holds one empty page,
the log everything else: tables, 10 messages.

reused_0.db3: a bag whose log SQLite checkpointed every 5 pages and then wrote again from its
start (new salts): the log's current transactions are followed by frames of an older generation,
which SQLite ignores.

oracle.json: for every whole-frame prefix of the -wal (as a crash at that point leaves it), the
rows SQLite reads from the .db3 with that prefix beside it: their count and their largest
receive time.

    python3 scripts/make-wal-fixture.py
"""
import json
import os
import shutil
import sqlite3
import struct
import tempfile

OUT = os.path.join(os.path.dirname(__file__), "..", "src", "recording", "testing", "wal")
NAME = "crashed_0.db3"


def cdr_string(text: str) -> bytes:
    data = text.encode() + b"\0"
    return b"\x00\x01\x00\x00" + struct.pack("<I", len(data)) + data


SCHEMA = (
        "CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL);"
        "INSERT INTO schema VALUES (4, 'jazzy');"
        "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
        "serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,type_description_hash TEXT NOT NULL);"
        "CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,timestamp INTEGER NOT NULL, data BLOB NOT NULL);"
        "CREATE INDEX timestamp_idx ON messages (timestamp ASC);"
        "INSERT INTO topics VALUES (1, '/chatter', 'std_msgs/msg/String', 'cdr', '', '');"
)


def fresh() -> None:
    work = tempfile.mkdtemp()
    path = os.path.join(work, "fresh_0.db3")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    for i in range(10):
        db.execute(
            "INSERT INTO messages (topic_id, timestamp, data) VALUES (1, ?, ?)",
            (1_700_000_000_000_000_000 + i * 10_000_000, cdr_string(f"fresh {i}")),
        )
    for suffix in ("", "-wal"):
        shutil.copy(path + suffix, os.path.join(OUT, "fresh_0.db3" + suffix))
    db.close()
    shutil.rmtree(work)


def reused() -> dict:
    work = tempfile.mkdtemp()
    path = os.path.join(work, "reused_0.db3")
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=5")
    for t in range(12):
        db.execute("BEGIN")
        for i in range(3 if t == 11 else 8):
            db.execute(
                "INSERT INTO messages (topic_id, timestamp, data) VALUES (1, ?, ?)",
                (1_700_000_000_000_000_000 + (t * 8 + i) * 10_000_000, cdr_string(f"reused {t}.{i} " + "y" * 700)),
            )
        db.execute("COMMIT")
    for suffix in ("", "-wal"):
        shutil.copy(path + suffix, os.path.join(OUT, "reused_0.db3" + suffix))
    db.close()
    shutil.rmtree(work)
    check = tempfile.mkdtemp()
    for suffix in ("", "-wal"):
        shutil.copy(os.path.join(OUT, "reused_0.db3" + suffix), os.path.join(check, "reused_0.db3" + suffix))
    reader = sqlite3.connect(os.path.join(check, "reused_0.db3"))
    count, last = reader.execute("SELECT count(*), max(timestamp) FROM messages").fetchone()
    reader.close()
    shutil.rmtree(check)
    return {"rows": count, "lastTimestamp": str(last)}


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    fresh()
    reused_oracle = reused()
    work = tempfile.mkdtemp()
    path = os.path.join(work, NAME)
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA)
    stamp = 1_700_000_000_000_000_000
    n = 0

    def insert(count: int, size: int) -> None:
        nonlocal stamp, n
        for _ in range(count):
            db.execute(
                "INSERT INTO messages (topic_id, timestamp, data) VALUES (1, ?, ?)",
                (stamp, cdr_string(f"message {n} " + "x" * size)),
            )
            stamp += 10_000_000
            n += 1

    insert(20, 100)
    # rosbag2's resilient preset: journal_mode=WAL, synchronous=NORMAL. No automatic checkpoint,
    # so every later transaction stays in the log.
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("PRAGMA synchronous=NORMAL")
    for t in range(6):
        db.execute("BEGIN")
        insert(12, 300 + 200 * t)
        db.execute("COMMIT")
    # An unfinished transaction whose pages spill into the log (a small page cache forces it).
    db.execute("PRAGMA cache_size=2")
    db.execute("BEGIN")
    insert(40, 900)
    for suffix in ("", "-wal"):
        shutil.copy(path + suffix, os.path.join(OUT, NAME + suffix))
    db.execute("ROLLBACK")
    db.close()

    wal = open(os.path.join(OUT, NAME + "-wal"), "rb").read()
    page_size = struct.unpack(">I", wal[8:12])[0]
    frame = 24 + page_size
    frames = (len(wal) - 32) // frame
    oracle = []
    for k in range(frames + 1):
        cut = tempfile.mkdtemp()
        shutil.copy(os.path.join(OUT, NAME), os.path.join(cut, NAME))
        with open(os.path.join(cut, NAME + "-wal"), "wb") as f:
            f.write(wal[: 32 + k * frame] if k > 0 else b"")
        reader = sqlite3.connect(os.path.join(cut, NAME))
        count, last = reader.execute("SELECT count(*), max(timestamp) FROM messages").fetchone()
        reader.close()
        shutil.rmtree(cut)
        oracle.append({"walBytes": 32 + k * frame if k > 0 else 0, "rows": count, "lastTimestamp": str(last)})
    with open(os.path.join(OUT, "oracle.json"), "w") as f:
        json.dump({"pageSize": page_size, "frames": frames, "prefixes": oracle, "reused": reused_oracle}, f, indent=1)
        f.write("\n")
    shutil.rmtree(work)
    print(f"{NAME}: {os.path.getsize(os.path.join(OUT, NAME))} bytes; -wal: {len(wal)} bytes, {frames} frames of {page_size}-byte pages")


if __name__ == "__main__":
    main()
