"""Rewrites a ROS 1 bag (format 2.0) with its chunks compressed as bz2 or lz4, as `rosbag compress`
does, for measuring Lockstep on compressed bags of realistic size (README, "Large recordings"):

    python3 scripts/recompress-bag.py IN.bag OUT.bag bz2|lz4 [MAX_CHUNKS]

bz2 uses Python's bz2 module (level 9, rosbag's); lz4 pipes each chunk through the `lz4` command
(`apt-get install -y lz4`), which writes the LZ4 frame format rosbag's roslz4 reads. Chunks are
taken in file order, up to MAX_CHUNKS (bz2 compresses about 15 MB/s here); the index is written
afresh for them: the connection records, then one chunk info record per chunk. Each chunk keeps
the index data records that follow it (their offsets are into the uncompressed chunk).
"""

import bz2
import struct
import subprocess
import sys

MAGIC = b"#ROSBAG V2.0\n"
BAG_HEADER_PADDED = 4096  # rosbag pads the bag header record's header and data to 4 KiB


def fields_of(header):
    out, i = {}, 0
    while i < len(header):
        (n,) = struct.unpack_from("<I", header, i)
        name, value = header[i + 4 : i + 4 + n].split(b"=", 1)
        out[name] = value
        i += 4 + n
    return out


def encode_fields(fields):
    out = b""
    for name, value in fields.items():
        field = name + b"=" + value
        out += struct.pack("<I", len(field)) + field
    return out


def record(fields, data):
    header = encode_fields(fields)
    return struct.pack("<I", len(header)) + header + struct.pack("<I", len(data)) + data


def bag_header(index_pos, connections, chunks):
    header = encode_fields(
        {
            b"op": b"\x03",
            b"index_pos": struct.pack("<Q", index_pos),
            b"conn_count": struct.pack("<I", connections),
            b"chunk_count": struct.pack("<I", chunks),
        }
    )
    padding = BAG_HEADER_PADDED - len(header)
    return struct.pack("<I", len(header)) + header + struct.pack("<I", padding) + b" " * padding


def compress(data, compression):
    if compression == "bz2":
        return bz2.compress(data, 9)
    return subprocess.run(["lz4", "-1", "-c", "-q", "-BD"], input=data, capture_output=True, check=True).stdout


def chunk_contents(data):
    """The connection records and, per connection, the message count and time range of a chunk."""
    connections, counts, first, last = {}, {}, None, None
    i = 0
    while i < len(data):
        (header_length,) = struct.unpack_from("<I", data, i)
        fields = fields_of(data[i + 4 : i + 4 + header_length])
        (data_length,) = struct.unpack_from("<I", data, i + 4 + header_length)
        op = fields[b"op"][0]
        if op == 7:
            (conn,) = struct.unpack("<I", fields[b"conn"])
            connections[conn] = (fields, data[i + 8 + header_length : i + 8 + header_length + data_length])
        elif op == 2:
            (conn,) = struct.unpack("<I", fields[b"conn"])
            counts[conn] = counts.get(conn, 0) + 1
            time = struct.unpack("<II", fields[b"time"])
            first = time if first is None or time < first else first
            last = time if last is None or time > last else last
        i += 8 + header_length + data_length
    return connections, counts, first, last


def main():
    source, target, compression = sys.argv[1], sys.argv[2], sys.argv[3]
    max_chunks = int(sys.argv[4]) if len(sys.argv) > 4 else None
    if compression not in ("bz2", "lz4"):
        sys.exit("compression must be bz2 or lz4")
    with open(source, "rb") as f_in, open(target, "wb") as out:
        if f_in.read(len(MAGIC)) != MAGIC:
            sys.exit(f"{source} is not a ROS bag 2.0")

        def next_record():
            head = f_in.read(4)
            if len(head) < 4:
                return None
            (header_length,) = struct.unpack("<I", head)
            fields = fields_of(f_in.read(header_length))
            (data_length,) = struct.unpack("<I", f_in.read(4))
            return fields, f_in.read(data_length)

        next_record()  # the bag header, written afresh at the end
        out.write(MAGIC + bag_header(0, 0, 0))
        connections, infos = {}, []
        in_chunk = False
        while True:
            found = next_record()
            if found is None:
                break
            fields, data = found
            op = fields[b"op"][0]
            if op == 5:
                if max_chunks is not None and len(infos) == max_chunks:
                    break
                plain = data if fields.get(b"compression") == b"none" else None
                if plain is None:
                    sys.exit("the chunks of the bag read must be uncompressed")
                position = out.tell()
                found_connections, counts, first, last = chunk_contents(plain)
                connections.update(found_connections)
                size = struct.pack("<I", len(plain))
                out.write(record({b"op": b"\x05", b"compression": compression.encode(), b"size": size}, compress(plain, compression)))
                infos.append((position, first, last, counts))
                in_chunk = True
            elif op == 4 and in_chunk:
                out.write(record(fields, data))
            else:
                in_chunk = False  # the index section: written afresh below
        index_pos = out.tell()
        for _, (fields, data) in sorted(connections.items()):
            out.write(record(fields, data))
        for position, first, last, counts in infos:
            data = b"".join(struct.pack("<II", conn, n) for conn, n in sorted(counts.items()))
            out.write(
                record(
                    {
                        b"op": b"\x06",
                        b"ver": struct.pack("<I", 1),
                        b"chunk_pos": struct.pack("<Q", position),
                        b"start_time": struct.pack("<II", *first),
                        b"end_time": struct.pack("<II", *last),
                        b"count": struct.pack("<I", len(counts)),
                    },
                    data,
                )
            )
        out.seek(len(MAGIC))
        out.write(bag_header(index_pos, len(connections), len(infos)))
    print(f"{target}: {len(infos)} {compression} chunks, {len(connections)} connections, index at byte {index_pos}")


main()
