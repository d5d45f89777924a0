import fc from "fast-check";
import { createHash } from "node:crypto";
import { v5 as packageV5, NIL as PACKAGE_NIL } from "uuid";
import { describe, expect, it, vi } from "vitest";

import { NIL_UUID, randomUuid, resolveDeviceId, StampedUuids, uuidFromName, uuidFromNamespace } from "./uuid";
import { TimeBase } from "../../time";

/** RFC 4122: 16 bytes with the version and variant bits set, in 8-4-4-4-12 form (test oracle). */
function rfc4122(bytes: Uint8Array, version: number): string {
  const b = Uint8Array.from(bytes.subarray(0, 16));
  b[6] = (b[6]! & 0x0f) | (version << 4);
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(b).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Independent RFC 4122 v5 (SHA-1) oracle written for this test. */
function v5(name: Uint8Array, ns: string): string {
  const nsBytes = Buffer.from(ns.replace(/-/g, ""), "hex");
  return rfc4122(createHash("sha1").update(nsBytes).update(name).digest(), 5);
}

describe("fuse UUID recipe (reference/fuse.md §1.7)", () => {
  it("reproduces the ROS 1 and ROS 2 UUIDs of Orientation3DStamped at Time(1, 0) from fuse's test data", () => {
    const base = TimeBase.forFirstStamp(0n);
    const stamp = base.fromSecNsec(1, 0);
    expect(new StampedUuids(base, "ros1").uuid("fuse_variables::Orientation3DStamped", stamp)).toBe(
      "d0344d9a-5584-5a24-b972-ea410b25e499",
    );
    expect(new StampedUuids(base, "ros2").uuid("fuse_variables::Orientation3DStamped", stamp)).toBe(
      "f585f09e-8f7b-5d41-890f-0ae773b82097",
    );
  });

  it("matches an independent SHA-1 oracle for epoch stamps, both recipes, with a device id", () => {
    const sec = 1_432_235_498;
    const nsec = 123_456_789;
    const base = TimeBase.forFirstSecNsec(sec - 3, 0);
    const stamp = base.fromSecNsec(sec, nsec);
    const device = uuidFromName("imu");
    const typeNs = v5(Buffer.from("fuse_variables::Position2DStamped"), NIL_UUID);
    const dev = Buffer.from(device.replace(/-/g, ""), "hex");
    const ros1 = Buffer.alloc(8);
    ros1.writeUInt32LE(sec, 0);
    ros1.writeUInt32LE(nsec, 4);
    const ros2 = Buffer.alloc(8);
    ros2.writeBigInt64LE(BigInt(sec) * 1_000_000_000n + BigInt(nsec), 0);
    expect(new StampedUuids(base, "ros1").uuid("fuse_variables::Position2DStamped", stamp, device)).toBe(
      v5(Buffer.concat([ros1, dev]), typeNs),
    );
    expect(new StampedUuids(base, "ros2").uuid("fuse_variables::Position2DStamped", stamp, device)).toBe(
      v5(Buffer.concat([ros2, dev]), typeNs),
    );
  });

  it("resolves device ids: explicit id, then name, then NIL", () => {
    expect(resolveDeviceId({})).toBe(NIL_UUID);
    expect(resolveDeviceId({ deviceName: "robot" })).toBe(v5(Buffer.from("robot"), NIL_UUID));
    expect(resolveDeviceId({ deviceId: "A0000000-0000-0000-0000-000000000001", deviceName: "x" })).toBe(
      "a0000000-0000-0000-0000-000000000001",
    );
    expect(() => resolveDeviceId({ deviceId: "nope" })).toThrow(/not a UUID/);
  });
});

describe("uuid5 against the uuid package", () => {
  it("gives the uuid package's v5 strings for any name and namespace bytes", () => {
    expect(NIL_UUID).toBe(PACKAGE_NIL);
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), fc.uint8Array({ maxLength: 100 }), (name, bytes) => {
        expect(uuidFromName(name)).toBe(packageV5(name, PACKAGE_NIL));
        expect(uuidFromNamespace(name, bytes)).toBe(packageV5(bytes, packageV5(name, PACKAGE_NIL)));
      }),
      { numRuns: 1000 },
    );
  });

  it("gives the uuid package's v5 for any stamp, device and recipe (the stamped-variable UUIDs)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.integer({ min: -1e15, max: 1e15 }),
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.constantFrom("ros1" as const, "ros2" as const),
        fc.string({ maxLength: 40 }),
        (baseSec, stamp, deviceBytes, recipe, type) => {
          const base = TimeBase.forFirstSecNsec(baseSec, 0);
          if (base.baseSec + Math.floor(stamp / 1e9) < 0 || base.baseSec + Math.floor(stamp / 1e9) >= 2 ** 32) {
            return;
          }
          const hex = Buffer.from(deviceBytes).toString("hex");
          const device = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
          const sec = base.baseSec + Math.floor(stamp / 1e9);
          const nsec = stamp - Math.floor(stamp / 1e9) * 1e9;
          const name = Buffer.alloc(24);
          if (recipe === "ros1") {
            name.writeUInt32LE(sec, 0);
            name.writeUInt32LE(nsec, 4);
          } else {
            name.writeBigInt64LE(BigInt(sec) * 1_000_000_000n + BigInt(nsec), 0);
          }
          name.set(deviceBytes, 8);
          const expected = packageV5(Uint8Array.from(name), packageV5(type, PACKAGE_NIL));
          expect(new StampedUuids(base, recipe).uuid(type, stamp, device)).toBe(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("StampedUuids' memory", () => {
  it("answers every call of a long run as a fresh generator would: repeats, other devices, −0, and stamps forgotten and asked again", () => {
    const base = TimeBase.forFirstSecNsec(1_432_235_000, 0);
    const types = ["fuse_variables::Position3DStamped", "fuse_variables::Orientation3DStamped", "fuse_variables::VelocityLinear3DStamped"];
    const devices = [NIL_UUID, "6f1c2c4e-0000-4000-8000-000000000001"];
    // More distinct stamps than the generator keeps per type and device (1,024 to 2,048), so that
    // some are forgotten and asked for again.
    const call = fc.record({
      type: fc.constantFrom(...types),
      stamp: fc.oneof(fc.integer({ min: 0, max: 2_500 }).map((k) => k * 10_000_000), fc.constant(-0)),
      device: fc.constantFrom(...devices),
      repeat: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(fc.constantFrom("ros1" as const, "ros2" as const), fc.array(call, { minLength: 12_000, maxLength: 15_000 }), (recipe, calls) => {
        const ids = new StampedUuids(base, recipe);
        const fresh = new Map<string, string>();
        for (const { type, stamp, device, repeat } of calls) {
          const key = `${type} ${stamp} ${device}`;
          let expected = fresh.get(key);
          if (expected == undefined) {
            expected = new StampedUuids(base, recipe).uuid(type, stamp, device);
            fresh.set(key, expected);
          }
          for (let i = 0; i < repeat; i++) {
            expect(ids.uuid(type, stamp, device)).toBe(expected);
          }
        }
      }),
      { numRuns: 6 },
    );
  });
});

describe("uuid5's hash", () => {
  it("hashes through the platform's one-shot SHA-1 where there is one (here, in Node)", async () => {
    const spy = vi.spyOn(process, "getBuiltinModule");
    try {
      vi.resetModules();
      const fresh = await import("./uuid");
      expect(spy).toHaveBeenCalledWith("node:crypto");
      expect(fresh.uuidFromName("fuse_variables::Position2DStamped")).toBe(
        packageV5("fuse_variables::Position2DStamped", PACKAGE_NIL),
      );
    } finally {
      spy.mockRestore();
      vi.resetModules();
    }
  });

  it("gives the same strings through the uuid package where the platform has no SHA-1 (a browser)", async () => {
    const spy = vi.spyOn(process, "getBuiltinModule").mockReturnValue(undefined);
    try {
      vi.resetModules();
      const fresh = await import("./uuid");
      fc.assert(
        fc.property(fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 100 }), (name, bytes) => {
          expect(fresh.uuidFromNamespace(name, bytes)).toBe(packageV5(bytes, packageV5(name, PACKAGE_NIL)));
          expect(fresh.uuidFromNamespace(name, bytes)).toBe(uuidFromNamespace(name, bytes));
        }),
        { numRuns: 300 },
      );
    } finally {
      spy.mockRestore();
      vi.resetModules();
    }
  });
});

describe("randomUuid (fuse's random constraint UUIDs)", () => {
  const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  it("gives RFC 4122 version-4 UUIDs, all different across several refills of its random pool", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const u = randomUuid();
      expect(u).toMatch(V4);
      seen.add(u);
    }
    expect(seen.size).toBe(1000);
  });

  it("uses each byte the platform CSPRNG gave once, in order, with the version and variant bits set", () => {
    const spy = vi.spyOn(crypto, "getRandomValues").mockImplementation(<T extends ArrayBufferView | null>(array: T): T => {
      const bytes = new Uint8Array(array!.buffer, array!.byteOffset, array!.byteLength);
      for (let i = 0; i < bytes.length; i++) {
        bytes[i] = (i * 7 + 3) & 0xff;
      }
      return array;
    });
    try {
      // Use up what the pool holds from earlier draws; the draw that refills it starts at byte 0.
      let first = randomUuid();
      for (let i = 0; i < 300 && spy.mock.calls.length === 0; i++) {
        first = randomUuid();
      }
      expect(spy).toHaveBeenCalledTimes(1);
      const expected = (offset: number): string =>
        rfc4122(Uint8Array.from({ length: 16 }, (_, i) => ((offset + i) * 7 + 3) & 0xff), 4);
      expect(first).toBe(expected(0));
      expect(randomUuid()).toBe(expected(16));
      expect(randomUuid()).toBe(expected(32));
    } finally {
      spy.mockRestore();
    }
  });
});
