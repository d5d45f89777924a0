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
