/**
 * Web app origins `lockstep serve` accepts without `--allow-origin`: Foxglove's hosted apps. The
 * desktop apps (Foxglove and Lichtblick, both Electron) load from `file://`; Lichtblick's web app
 * is self-hosted, usually on a loopback address (accepted below) or on an origin the user passes
 * with `--allow-origin`.
 */
export const DEFAULT_ALLOWED_ORIGINS: readonly string[] = [
  "https://app.foxglove.dev",
  "https://studio.foxglove.dev",
  "https://embed.foxglove.dev",
  "file://",
];

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Whether `origin` is an http(s) origin on a loopback host (localhost, 127.0.0.0/8, [::1]), any port. */
function isLoopbackOrigin(origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return false;
  }
  const host = url.hostname;
  return LOOPBACK_HOSTS.has(host) || host.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Decides which WebSocket handshakes `lockstep serve` accepts, by their `Origin` header. A browser
 * always sends the page's origin, so this is what keeps an arbitrary web page the user visits from
 * reading the recording or publishing through 127.0.0.1. Accepted: no Origin (a program, not a
 * browser page), `file://` (the desktop apps), loopback http(s) origins on any port, Foxglove's
 * hosted apps, and every origin in `extra` (compared exactly, trailing slash ignored; `"null"`
 * admits sandboxed and opaque origins, which is why it is not in the defaults).
 */
export class OriginPolicy {
  readonly #allowed: Set<string>;

  public constructor(extra: readonly string[] = []) {
    this.#allowed = new Set([...DEFAULT_ALLOWED_ORIGINS, ...extra].map(normalize));
  }

  /** Whether a handshake with this Origin header (undefined = none) is accepted. */
  public allows(origin: string | undefined): boolean {
    if (origin == undefined || origin === "") {
      return true;
    }
    return this.#allowed.has(normalize(origin)) || isLoopbackOrigin(origin);
  }
}

/** Lower case without trailing slashes; every `file:` origin as `file://`. */
function normalize(origin: string): string {
  const o = origin.trim().toLowerCase();
  return o.startsWith("file:") ? "file://" : o.replace(/\/+$/, "");
}
