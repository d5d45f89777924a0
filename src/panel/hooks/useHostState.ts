import type { Time, Topic } from "@foxglove/extension";
import { useCallback, useState } from "react";

import type { FrameSink } from "../state/FrameHandler";

/** What the panel shows of the host's render state (besides messages). */
export interface HostState {
  readonly topics: readonly Topic[] | undefined;
  readonly scheme: "dark" | "light" | undefined;
  readonly start: Time | undefined;
  readonly end: Time | undefined;
  readonly currentTime: Time | undefined;
  /** The app's time format setting ("TOD" time of day, "SEC" seconds), when the host reports it. */
  readonly timeFormat: string | undefined;
  readonly timezone: string | undefined;
}

const same = (a: Time | undefined, b: Time | undefined): boolean => a?.sec === b?.sec && a?.nsec === b?.nsec;

/**
 * The host's topics, colour scheme, playback range and time, and time-format settings, kept as
 * React state; `onChanges` is the FrameHandler's `update` (stable identity).
 */
export function useHostState(): { host: HostState; onChanges: FrameSink["update"] } {
  const [host, setHost] = useState<HostState>({
    topics: undefined,
    scheme: undefined,
    start: undefined,
    end: undefined,
    currentTime: undefined,
    timeFormat: undefined,
    timezone: undefined,
  });
  const onChanges = useCallback<FrameSink["update"]>((c) => {
    setHost((h) => {
      const next = {
        topics: c.topics ?? h.topics,
        scheme: c.colorScheme ?? h.scheme,
        start: c.startTime ?? h.start,
        end: c.endTime ?? h.end,
        currentTime: c.currentTime ?? h.currentTime,
        timeFormat: c.appSettings?.get("timeFormat") ?? h.timeFormat,
        timezone: c.appSettings?.get("timezone") ?? h.timezone,
      };
      const unchanged =
        next.topics === h.topics &&
        next.scheme === h.scheme &&
        same(next.start, h.start) &&
        same(next.end, h.end) &&
        same(next.currentTime, h.currentTime) &&
        next.timeFormat === h.timeFormat &&
        next.timezone === h.timezone;
      return unchanged ? h : next;
    });
  }, []);
  return { host, onChanges };
}
