import { DROP_REASONS, type DropReason } from "../../pipeline";

/** Colours of one scheme. */
export interface Theme {
  readonly background: string;
  readonly panel: string;
  readonly text: string;
  readonly muted: string;
  readonly border: string;
  readonly accent: string;
  readonly received: string;
  readonly matched: string;
  readonly raw: string;
  readonly fused: string;
  readonly error: string;
}

const LIGHT: Theme = {
  background: "#ffffff",
  panel: "#f4f5f7",
  text: "#1b1d21",
  muted: "#6b7280",
  border: "#d6d9de",
  accent: "#6f3be8",
  received: "#b8bec8",
  matched: "#1f9d55",
  raw: "#d97706",
  fused: "#2563eb",
  error: "#c62828",
};

const DARK: Theme = {
  background: "#15151a",
  panel: "#1f2027",
  text: "#e7e8ec",
  muted: "#9aa1ad",
  border: "#343641",
  accent: "#a78bfa",
  received: "#4b5060",
  matched: "#34d399",
  raw: "#fbbf24",
  fused: "#60a5fa",
  error: "#f87171",
};

/** The theme for the host's colour scheme (light when unknown). */
export function themeFor(scheme: "dark" | "light" | undefined): Theme {
  return scheme === "dark" ? DARK : LIGHT;
}

const REASON_HUES = [0, 28, 48, 200, 280, 320, 160, 90, 60, 340, 230, 12, 300, 190, 120, 260];

/** A distinct colour per drop reason, readable on both schemes. */
export function reasonColor(reason: DropReason, scheme: "dark" | "light" | undefined): string {
  const i = DROP_REASONS.indexOf(reason);
  const hue = REASON_HUES[i % REASON_HUES.length]!;
  return scheme === "dark" ? `hsl(${hue} 80% 62%)` : `hsl(${hue} 75% 45%)`;
}

/** Reason of a timeline drop code (2 + index in DROP_REASONS). */
export function reasonOfCode(code: number): DropReason {
  return DROP_REASONS[code - 2] ?? DROP_REASONS[0];
}
