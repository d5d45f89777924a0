import { v4 as uuidv4, v5 as uuidv5, NIL as NIL_UUID_STRING } from "uuid";

import type { Stamp, TimeBase } from "../../time";

/** The nil UUID (fuse's default device id). */
export const NIL_UUID = NIL_UUID_STRING;

const NIL_BYTES = new Uint8Array(16);
const UTF8 = new TextEncoder();
/** The character codes of the lower-case hex digits. */
const HEX_CODES = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
/** Where each of the 16 bytes' two digits go in the 36 characters (the dashes stay put). */
const DIGIT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** The characters of the UUID being written (reused; dashes at 8, 13, 18, 23). */
const CHARS: number[] = Array.from({ length: 36 }, () => 0x2d);

/**
 * The RFC 4122 form of the 16 bytes `b` (bytes the `uuid` package wrote, version and variant bits
 * included). The package's own strings are joined from 20 pieces, a rope that every Map lookup by
 * this key flattens first; one `String.fromCharCode` gives a flat string at once (measured:
 * 800 → 330 ns per UUID with a Map set and get).
 */
function formatUuid(b: Uint8Array): string {
  for (let i = 0; i < 16; i++) {
    const v = b[i]!;
    const c = DIGIT_AT[i]!;
    CHARS[c] = HEX_CODES[v >>> 4]!;
    CHARS[c + 1] = HEX_CODES[v & 0x0f]!;
  }
  return String.fromCharCode.apply(null, CHARS);
}

/** The 16 bytes of the UUID being generated (reused: formatUuid copies them into the string). */
const generated = new Uint8Array(16);

/** SHA-1 of some bytes, as 40 lower-case hex digits. */
type Sha1Hex = (data: Uint8Array) => string;

interface NodeCrypto {
  hash?: (algorithm: string, data: Uint8Array, outputEncoding: "hex") => string;
}

/**
 * Node's one-shot `crypto.hash("sha1", …)` (Node >= 20.12, reached through
 * `process.getBuiltinModule` so that no bundle for the browser sees a Node import), or undefined
 * where there is none. The digest is asked for in hex: a Buffer result costs an ArrayBuffer per
 * hash (measured: 550–750 ns per hash as a Buffer, 175 ns as hex).
 */
function nativeSha1Hex(): Sha1Hex | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const crypto = host?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;
  const hash = crypto?.hash;
  return typeof hash === "function" ? (data) => hash("sha1", data, "hex") : undefined;
}

/**
 * The platform's one-shot SHA-1 where there is one: the `uuid` package hashes through
 * `createHash`, a hash object per UUID (twice the time, and most of a UUID's allocation).
 */
const sha1Hex = nativeSha1Hex();
/** Where each of a digest's first 32 hex digits goes in the 36 characters of a UUID. */
const HEX_DIGIT_AT = DIGIT_AT.flatMap((c) => [c, c + 1]);
/**
 * By the character code of a hex digit d: the code of the digit whose value is `(d & 3) | 8`,
 * the RFC 4122 variant written into the high bits of byte 8.
 */
const VARIANT_DIGIT = new Uint8Array(128);
HEX_CODES.forEach((code, value) => {
  VARIANT_DIGIT[code] = HEX_CODES[(value & 3) | 8]!;
});

/**
 * The version-5 UUID whose bytes are the first 16 of the SHA-1 digest `hex` (40 lower-case hex
 * digits), with the version digit set to 5 and the variant bits to RFC 4122: the bytes the
 * `uuid` package would write, formatted as {@link formatUuid} formats them.
 */
function formatDigestUuid(hex: string): string {
  for (let i = 0; i < 32; i++) {
    CHARS[HEX_DIGIT_AT[i]!] = hex.charCodeAt(i);
  }
  // Byte 6's high digit is the version; byte 8's high digit keeps its two low bits.
  CHARS[14] = HEX_CODES[5]!;
  CHARS[19] = VARIANT_DIGIT[hex.charCodeAt(16)]!;
  return String.fromCharCode.apply(null, CHARS);
}

/**
 * RFC 4122 version-5 UUID of the bytes `input` = namespace (16 bytes) ‖ name: the same string as
 * the `uuid` package's `v5(name, namespace)` (SHA-1 of namespace ‖ name, its first 16 bytes with
 * the version set to 5 and the variant to RFC 4122), hashed by the platform's one-shot SHA-1
 * where there is one, else by the package. Stamped UUIDs lay their input out once per type and
 * device and call this directly.
 */
function uuid5Of(input: Uint8Array): string {
  if (sha1Hex == undefined) {
    return formatUuid(uuidv5(input.subarray(16), input.subarray(0, 16), generated));
  }
  return formatDigestUuid(sha1Hex(input));
}

/** {@link uuid5Of} of `name` in the namespace given by its 16 bytes. */
function uuid5(namespace: Uint8Array, name: Uint8Array): string {
  const input = new Uint8Array(16 + name.length);
  input.set(namespace, 0);
  input.set(name, 16);
  return uuid5Of(input);
}

/**
 * Which fuse generation's stamp encoding to use for stamped-variable UUIDs (reference/fuse.md
 * §1.7): `"ros1"` = `u32le(sec) ‖ u32le(nsec)` (fuse 0.x, `devel`), `"ros2"` = `i64le(nanoseconds)`
 * (fuse 1.x, `rolling`). The two give different UUIDs for the same stamp.
 */
export type UuidRecipe = "ros1" | "ros2";

// Any 128-bit value in 8-4-4-4-12 form (Boost accepts every version and variant; so do we).
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The 16 raw bytes of a UUID string (any version). Throws TypeError when malformed. */
export function uuidBytes(uuid: string): Uint8Array {
  if (!UUID_RE.test(uuid)) {
    throw new TypeError(`"${uuid}" is not a UUID (expected 8-4-4-4-12 hex digits)`);
  }
  const hex = uuid.replace(/-/g, "");
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) {
    out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  return out;
}

/** fuse's `uuid::generate(name)`: `uuid5(NIL, utf8(name))`. Used for device names. */
export function uuidFromName(name: string): string {
  return uuid5(NIL_BYTES, UTF8.encode(name));
}

/** fuse's `uuid::generate(namespace, bytes)`: `uuid5(uuid5(NIL, namespace), bytes)`. */
export function uuidFromNamespace(namespace: string, bytes: Uint8Array): string {
  return uuid5(uuidBytes(uuidFromName(namespace)), bytes);
}

/**
 * Random bytes for v4 UUIDs, drawn from the platform CSPRNG (`crypto.getRandomValues`, in Node,
 * browsers and workers alike) 256 UUIDs' worth at a time: in a browser worker one
 * `crypto.randomUUID` call costs about 15 times a pooled UUID, and the fusion preview draws one
 * per constraint. Each byte is used once.
 */
const randomPool = new Uint8Array(16 * 256);
let randomPoolAt = randomPool.length;
const randomBytes16 = new Uint8Array(16);
const POOLED_V4 = {
  rng: (): Uint8Array => {
    if (randomPoolAt === randomPool.length) {
      crypto.getRandomValues(randomPool);
      randomPoolAt = 0;
    }
    for (let i = 0; i < 16; i++) {
      randomBytes16[i] = randomPool[randomPoolAt + i]!;
    }
    randomPoolAt += 16;
    return randomBytes16;
  },
};

/** A random (v4) UUID, as fuse gives every constraint; never the same bytes twice from one pool. */
export function randomUuid(): string {
  return formatUuid(uuidv4(POOLED_V4, generated));
}

/**
 * Device id as fuse's `loadDeviceId` resolves it: an explicit `deviceId` UUID string wins, else
 * `uuid5(NIL, deviceName)`, else NIL. Throws TypeError when `deviceId` is not a UUID.
 */
export function resolveDeviceId(options: { deviceId?: string; deviceName?: string }): string {
  if (options.deviceId != undefined) {
    if (!UUID_RE.test(options.deviceId)) {
      throw new TypeError(`device id "${options.deviceId}" is not a UUID (expected 8-4-4-4-12 hex digits)`);
    }
    return options.deviceId.toLowerCase();
  }
  if (options.deviceName != undefined) {
    return uuidFromName(options.deviceName);
  }
  return NIL_UUID;
}

const NS_PER_SEC = 1_000_000_000;

/**
 * Generates fuse's deterministic stamped-variable UUIDs:
 * `uuid5(uuid5(NIL, typeName), stampBytes ‖ deviceIdBytes)` (reference/fuse.md §1.7), with the
 * stamp encoded per `recipe`. Stamps are Lockstep relative stamps of `timeBase`. Type namespaces
 * are cached; one call hashes 24 bytes.
 *
 * ```ts
 * const ids = new StampedUuids(TimeBase.forFirstStamp(0n), "ros1");
 * ids.uuid("fuse_variables::Position2DStamped", 1_000_000_000); // deterministic
 * ```
 */
export class StampedUuids {
  /** The time base the relative stamps refer to. */
  public readonly timeBase: TimeBase;
  /** The stamp encoding. */
  public readonly recipe: UuidRecipe;
  /** Per type: the namespace bytes and, per device, the recently generated UUIDs by stamp. */
  readonly #types = new Map<string, { readonly ns: Uint8Array; readonly devices: Map<string, RecentUuids> }>();

  public constructor(timeBase: TimeBase, recipe: UuidRecipe) {
    this.timeBase = timeBase;
    this.recipe = recipe;
  }

  /**
   * The UUID of the stamped variable of `type` at `stamp` for `deviceId` (default NIL). Sensors
   * and motion models ask for the same few stamps over and over, so the latest
   * 1024 UUIDs (at least) per type and device are remembered (the hash is deterministic).
   */
  public uuid(type: string, stamp: Stamp, deviceId: string = NIL_UUID): string {
    let entry = this.#types.get(type);
    if (entry == undefined) {
      entry = { ns: uuidBytes(uuidFromName(type)), devices: new Map() };
      this.#types.set(type, entry);
    }
    let recent = entry.devices.get(deviceId);
    if (recent == undefined) {
      recent = new RecentUuids(entry.ns, uuidBytes(deviceId));
      entry.devices.set(deviceId, recent);
    }
    const hit = recent.current.get(stamp) ?? recent.previous.get(stamp);
    if (hit != undefined) {
      return hit;
    }
    // Split the relative stamp into whole seconds and nanoseconds (exact: |stamp| < 2^52).
    const relSec = Math.floor(stamp / NS_PER_SEC);
    const nsec = stamp - relSec * NS_PER_SEC;
    const sec = this.timeBase.baseSec + relSec;
    const view = recent.stampView;
    if (this.recipe === "ros1") {
      view.setUint32(STAMP_AT, sec >>> 0, true);
      view.setUint32(STAMP_AT + 4, nsec, true);
    } else {
      view.setBigInt64(STAMP_AT, BigInt(sec) * 1_000_000_000n + BigInt(nsec), true);
    }
    const uuid = uuid5Of(recent.input);
    if (recent.current.size >= RECENT_PER_TYPE) {
      // Two generations: O(1) eviction, and the newest RECENT_PER_TYPE are always remembered.
      recent.previous = recent.current;
      recent.current = new Map();
    }
    recent.current.set(stamp, uuid);
    return uuid;
  }
}

/** How many UUIDs per (type, device) StampedUuids remembers at least (at most twice as many). */
const RECENT_PER_TYPE = 1024;

/** Where a stamped-variable UUID's name (stamp ‖ device) starts in its hash input. */
const STAMP_AT = 16;

/**
 * The remembered UUIDs of one type and device, by stamp, and their hash input laid out once:
 * type namespace ‖ stamp (8 bytes, written per UUID) ‖ device.
 */
class RecentUuids {
  public current = new Map<Stamp, string>();
  public previous = new Map<Stamp, string>();
  public readonly input = new Uint8Array(STAMP_AT + 8 + 16);
  public readonly stampView = new DataView(this.input.buffer);

  public constructor(namespace: Uint8Array, device: Uint8Array) {
    this.input.set(namespace, 0);
    this.input.set(device, STAMP_AT + 8);
  }
}
