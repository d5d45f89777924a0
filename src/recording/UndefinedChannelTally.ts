import type { DamageLog } from "./DamageLog";
import type { RecordContents } from "./mcapChunk";

/** One channel's dropped messages: how many, and where the first one is. */
interface Group {
  count: number;
  readonly offset: number;
  readonly where: string;
}

/**
 * The messages one MCAP read dropped because no Channel record defines their channel, grouped
 * per channel id across the read: `report` adds one damage per channel, at the first message's
 * byte offset (the chunk's, when the message is inside a compressed chunk), with the count. A
 * file that changed one channel id in many messages thus names it once, not once per chunk.
 */
export class UndefinedChannelTally {
  readonly #groups = new Map<number, Group>();

  /** Adds what `contents`, read from the bytes at file offset `offset`, left out. */
  public add(contents: RecordContents, offset: number): void {
    for (const [channelId, dropped] of contents.undefinedChannels) {
      const group = this.#groups.get(channelId);
      if (group) {
        group.count += dropped.count;
      } else if (dropped.offset != undefined) {
        this.#groups.set(channelId, { count: dropped.count, offset: offset + dropped.offset, where: "is the message record here" });
      } else {
        const where = `is in the compressed chunk here, at byte ${dropped.inRecords ?? 0} of its records`;
        this.#groups.set(channelId, { count: dropped.count, offset, where });
      }
    }
  }

  /** Adds one damage per channel to `damage`, in the order the channels were met. */
  public report(damage: DamageLog): void {
    for (const [channelId, { count, offset, where }] of this.#groups) {
      const what = count === 1 ? "1 message" : `${count} messages`;
      damage.add(
        offset,
        `${what} on channel ${channelId}, which no Channel record defines, ${count === 1 ? "was" : "were"} dropped (the channel id is damaged, or its Channel record is lost; the first ${where})`,
      );
    }
  }
}
