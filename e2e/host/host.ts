// A minimal Foxglove-like host for the browser tests: implements PanelExtensionContext (typed
// against @foxglove/extension), loads the BUILT extension bundle (dist/extension.js) the way
// Foxglove does (a commonjs2 module evaluated with `require("@foxglove/extension")`), and drives
// the panel with render states built from a recording (recording mode: seek + range
// subscription; live mode: optional advertise/publish) or from a synthetic high-rate feed.
import type {
  ExtensionContext,
  Immutable,
  MessageEvent,
  PanelExtensionContext,
  RenderState,
  SettingsTree,
  SettingsTreeAction,
  SubscribeMessageRangeArgs,
  Subscription,
  Time,
  Topic,
} from "@foxglove/extension";

/** How the host presents itself to the panel. */
export interface HostOptions {
  readonly mode: "recording" | "live";
  /** Live only: offer advertise/publish (a Foxglove WebSocket server with clientPublish). */
  readonly publish: boolean;
  readonly initialState: unknown;
  readonly colorScheme: "light" | "dark";
  /** Recording mode: offer subscribeMessageRange (default true); false = preload/allFrames only. */
  readonly rangeApi?: boolean;
  /** URL of the recording as JSON ({topics, messages}); omitted for synthetic feeds. */
  readonly recordingUrl?: string;
}

interface RecordingJson {
  topics: Topic[];
  messages: MessageEvent[];
}

interface Published {
  topic: string;
  message: unknown;
}

const toNs = (t: Time): number => t.sec * 1e9 + t.nsec;
const fromNs = (ns: number): Time => ({ sec: Math.floor(ns / 1e9), nsec: Math.round(ns % 1e9) });

async function yieldToBrowser(): Promise<void> {
  await new Promise<void>((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      resolve();
    };
    ch.port2.postMessage(0);
  });
}

class TestHost {
  ctx!: PanelExtensionContext;
  options!: HostOptions;
  topics: Topic[] = [];
  messages: MessageEvent[] = [];
  subscriptions: Subscription[] = [];
  watched = new Set<string>();
  savedState: unknown;
  settings: Immutable<SettingsTree> | undefined;
  advertised = new Map<string, string>();
  published: Published[] = [];
  publishedCount = new Map<string, number>();
  renderMs: number[] = [];
  pendingSeek = false;
  cursor = 0;
  errors: string[] = [];
  cleanup: (() => void) | void = undefined;

  async start(options: HostOptions): Promise<void> {
    this.options = options;
    if (options.recordingUrl != undefined) {
      const rec = (await (await fetch(options.recordingUrl)).json()) as RecordingJson;
      this.topics = rec.topics;
      this.messages = rec.messages;
    }
    const source = await (await fetch("/extension.js")).text();
    const module = { exports: {} as { activate?: (ctx: ExtensionContext) => void } };
    // Foxglove evaluates an extension the same way: a commonjs2 module body run as a function.
    // eslint-disable-next-line no-new-func, @typescript-eslint/no-implied-eval
    const load = new Function("module", "exports", "require", source) as (m: unknown, e: unknown, r: (name: string) => unknown) => void;
    load(module, module.exports, (name: string) => {
      if (name === "@foxglove/extension") {
        return {};
      }
      throw new Error(`extension required unknown module ${name}`);
    });
    let initPanel: ((ctx: PanelExtensionContext) => void | (() => void)) | undefined;
    const extCtx = {
      mode: "production",
      registerPanel: (reg: { name: string; initPanel: typeof initPanel }) => {
        if (reg.name !== "Lockstep") {
          throw new Error(`unexpected panel name ${reg.name}`);
        }
        initPanel = reg.initPanel;
      },
      registerMessageConverter: () => undefined,
      registerTopicAliases: () => undefined,
    } as unknown as ExtensionContext;
    module.exports.activate!(extCtx);
    const el = document.getElementById("panel") as HTMLDivElement;
    this.ctx = this.#makeContext(el);
    this.cleanup = initPanel!(this.ctx);
    for (let i = 0; i < 200 && this.ctx.onRender == undefined; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await this.render({ topics: this.topics, colorScheme: options.colorScheme, ...this.#times(this.messages[0]?.receiveTime) });
  }

  #times(current: Time | undefined): Partial<RenderState> {
    if (this.messages.length === 0 || current == undefined) {
      return {};
    }
    return {
      currentTime: current,
      startTime: this.messages[0]!.receiveTime,
      endTime: this.messages[this.messages.length - 1]!.receiveTime,
    };
  }

  #makeContext(panelElement: HTMLDivElement): PanelExtensionContext {
    const live = this.options.mode === "live";
    const canPublish = live && this.options.publish;
    const ctx: PanelExtensionContext = {
      panelElement,
      initialState: this.options.initialState,
      layout: { addPanel: () => undefined },
      dataSourceProfile: "ros1",
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the overloads include deprecated ones
      watch: (field: keyof RenderState) => {
        this.watched.add(field);
      },
      saveState: (state: unknown) => {
        this.savedState = JSON.parse(JSON.stringify(state));
      },
      setParameter: () => undefined,
      setSharedPanelState: () => undefined,
      setVariable: () => undefined,
      setPreviewTime: () => undefined,
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the overloads include deprecated ones
      subscribe: (subs: Subscription[] | string[]) => {
        this.subscriptions = subs.map((s) => (typeof s === "string" ? { topic: s } : s));
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- the fallback under test
        const preload = new Set(this.subscriptions.filter((s) => s.preload === true).map((s) => s.topic));
        if (preload.size > 0 && !live) {
          // Like Foxglove's block loader: allFrames arrives after the subscription, in two steps.
          const all = this.messages.filter((m) => preload.has(m.topic));
          setTimeout(() => {
            // eslint-disable-next-line @typescript-eslint/no-deprecated -- the fallback under test
            void this.render({ allFrames: all.slice(0, Math.floor(all.length / 2)) }).then(async () => {
              // eslint-disable-next-line @typescript-eslint/no-deprecated -- same
              await this.render({ allFrames: all });
            });
          }, 50);
        }
      },
      unsubscribeAll: () => {
        this.subscriptions = [];
      },
      subscribeAppSettings: () => undefined,
      updatePanelSettingsEditor: (settings: Immutable<SettingsTree>) => {
        this.settings = settings;
      },
      setDefaultPanelTitle: () => undefined,
    };
    if (!live) {
      ctx.seekPlayback = (time: number | Time) => {
        const t = typeof time === "number" ? time * 1e9 : toNs(time);
        this.seek(t);
      };
      if (this.options.rangeApi !== false) {
        ctx.subscribeMessageRange = (args: SubscribeMessageRangeArgs) => this.#range(args);
      }
    }
    if (canPublish) {
      ctx.advertise = (topic: string, schemaName: string) => {
        this.advertised.set(topic, schemaName);
      };
      ctx.unadvertise = (topic: string) => {
        this.advertised.delete(topic);
      };
      ctx.publish = (topic: string, message: unknown) => {
        if (!this.advertised.has(topic)) {
          throw new Error(`publish on ${topic} before advertise`);
        }
        this.publishedCount.set(topic, (this.publishedCount.get(topic) ?? 0) + 1);
        if (this.published.length < 200) {
          this.published.push({ topic, message });
        }
      };
    }
    return ctx;
  }

  #range(args: SubscribeMessageRangeArgs): () => void {
    let cancelled = false;
    const msgs = this.messages.filter((m) => m.topic === args.topic);
    async function* batches(): AsyncGenerator<MessageEvent[]> {
      for (let i = 0; i < msgs.length && !cancelled; i += 500) {
        await yieldToBrowser();
        yield msgs.slice(i, i + 500);
      }
    }
    void args.onNewRangeIterator(batches());
    return () => {
      cancelled = true;
    };
  }

  /** Delivers one render state; resolves when the panel calls done. Records the time it took. */
  async render(state: Partial<RenderState>): Promise<void> {
    const onRender = this.ctx.onRender;
    if (!onRender) {
      await Promise.resolve(); return;
    }
    const filtered: Partial<RenderState> = {};
    for (const [k, v] of Object.entries(state)) {
      if (this.watched.has(k)) {
        (filtered as Record<string, unknown>)[k] = v;
      }
    }
    await new Promise<void>((resolve) => {
      const t0 = performance.now();
      let called = false;
      // Cleared as soon as done comes, so that it does not keep the frame alive for 5 s.
      const timer = setTimeout(() => {
        if (!called) {
          this.errors.push("done not called within 5 s");
          resolve();
        }
      }, 5000);
      try {
        onRender(filtered, () => {
          if (called) {
            this.errors.push("done called twice");
          }
          called = true;
          clearTimeout(timer);
          this.renderMs.push(performance.now() - t0);
          resolve();
        });
      } catch (err) {
        this.errors.push(String(err));
        clearTimeout(timer);
        resolve();
      }
    });
  }

  seek(ns: number): void {
    this.cursor = this.messages.findIndex((m) => toNs(m.receiveTime) >= ns);
    if (this.cursor < 0) {
      this.cursor = this.messages.length;
    }
    this.pendingSeek = true;
  }

  /** Plays the recording from the cursor to `untilNs` (default: the end) in frames of `frameNs`. */
  async play(frameNs = 200e6, untilNs = Infinity): Promise<number> {
    const subscribed = (): Set<string> => new Set(this.subscriptions.map((s) => s.topic));
    let delivered = 0;
    while (this.cursor < this.messages.length) {
      const start = toNs(this.messages[this.cursor]!.receiveTime);
      if (start >= untilNs) {
        break;
      }
      const end = Math.min(start + frameNs, untilNs);
      const frame: MessageEvent[] = [];
      const topics = subscribed();
      while (this.cursor < this.messages.length && toNs(this.messages[this.cursor]!.receiveTime) < end) {
        const m = this.messages[this.cursor++]!;
        if (topics.has(m.topic)) {
          frame.push(m);
        }
      }
      delivered += frame.length;
      const seek = this.pendingSeek;
      this.pendingSeek = false;
      await this.render({ currentFrame: frame, didSeek: seek, ...this.#times(fromNs(end)) });
      await new Promise((r) => setTimeout(r, 0));
    }
    return delivered;
  }

  /**
   * A synthetic live feed: `topics` topics at `hz` each for `seconds` of simulated time, in
   * frames of 1/fps s delivered as fast as the panel takes them (faster than real time). Calls
   * `sample(i)` every `sampleEverySec` simulated seconds (the test reads the heap then).
   */
  async synthetic(args: { topics: number; hz: number; seconds: number; fps: number; sampleEverySec: number }): Promise<{ renders: number; messages: number }> {
    const names = Array.from({ length: args.topics }, (_, i) => `/synth/${i}`);
    const base = 1_700_000_000e9;
    const periodNs = 1e9 / args.hz;
    const frameNs = 1e9 / args.fps;
    let messages = 0;
    let renders = 0;
    const w = window as unknown as { lockstepSample?: (simSec: number) => Promise<void> };
    let nextSample = args.sampleEverySec;
    let k = 0;
    for (let t = 0; t < args.seconds * 1e9; t += frameNs) {
      const frame: MessageEvent[] = [];
      while (k * periodNs < t + frameNs) {
        const stampNs = base + k * periodNs;
        for (let i = 0; i < names.length; i++) {
          const jitter = ((k * 7919 + i * 104729) % 200) * 1000; // 0–0.2 ms, deterministic
          const s = fromNs(stampNs + jitter);
          frame.push({
            topic: names[i]!,
            schemaName: "sensor_msgs/Imu",
            receiveTime: fromNs(stampNs + 300_000),
            // eslint-disable-next-line @typescript-eslint/no-deprecated -- a required field of the type
            sizeInBytes: 300,
            message: { header: { seq: k, stamp: s, frame_id: "imu" }, angular_velocity: { x: 0, y: 0, z: i } },
          });
        }
        k++;
      }
      messages += frame.length;
      await this.render({ currentFrame: frame, currentTime: fromNs(base + t) });
      renders++;
      if (t / 1e9 >= nextSample) {
        nextSample += args.sampleEverySec;
        await w.lockstepSample?.(t / 1e9);
      }
      if (renders % 4 === 0) {
        await new Promise((r) => setTimeout(r, 0));
      }
    }
    return { renders, messages };
  }

  /** Calls the settings tree's action handler (what the host's settings editor would do). */
  settingsAction(action: SettingsTreeAction): void {
    this.settings?.actionHandler(action);
  }

  /** A JSON summary for the test. */
  summary(): unknown {
    const sorted = [...this.renderMs].sort((a, b) => a - b);
    const q = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
    return {
      savedState: this.savedState,
      settings: this.settings ? (JSON.parse(JSON.stringify(this.settings.nodes)) as unknown) : undefined,
      subscriptions: this.subscriptions,
      advertised: [...this.advertised.entries()],
      publishedCount: Object.fromEntries(this.publishedCount),
      publishedSample: this.published.slice(0, 10),
      renders: sorted.length,
      renderMs: { median: q(0.5), p99: q(0.99), p999: q(0.999), max: sorted[sorted.length - 1] ?? 0, over16: sorted.filter((x) => x >= 16).length },
      errors: this.errors,
      hasAdvertise: this.ctx.advertise != undefined,
    };
  }
}

(window as unknown as { lockstepHost: TestHost }).lockstepHost = new TestHost();
