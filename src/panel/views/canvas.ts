/**
 * Sizes a canvas for the device pixel ratio, clears it to `background` and sets the panel's label
 * font. Returns the 2D context scaled to CSS pixels, or undefined when the canvas is not mounted
 * or has no 2D context (the caller then draws nothing).
 */
export function prepareCanvas(
  canvas: HTMLCanvasElement | null,
  width: number,
  height: number,
  background: string,
): CanvasRenderingContext2D | undefined {
  const ctx = canvas?.getContext("2d");
  if (!canvas || !ctx) {
    return undefined;
  }
  const dpr = globalThis.devicePixelRatio > 0 ? globalThis.devicePixelRatio : 1;
  canvas.width = width * dpr;
  canvas.height = height * dpr;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = background;
  ctx.fillRect(0, 0, width, height);
  ctx.font = "11px sans-serif";
  return ctx;
}

/**
 * Packs phrases into as few lines as fit `maxWidth` (as `measure` measures them), in order, joined
 * by `separator` within a line. A phrase wider than `maxWidth` takes a line of its own (the
 * canvas clips it); every phrase is on exactly one line.
 */
export function packLines(phrases: readonly string[], maxWidth: number, measure: (text: string) => number, separator = " "): string[] {
  const lines: string[] = [];
  let line = "";
  for (const phrase of phrases) {
    const joined = line === "" ? phrase : `${line}${separator}${phrase}`;
    if (line === "" || measure(joined) <= maxWidth) {
      line = joined;
    } else {
      lines.push(line);
      line = phrase;
    }
  }
  if (line !== "") {
    lines.push(line);
  }
  return lines;
}
