/**
 * A binary min-heap ordered by `less` (strict). Used to merge time-overlapping chunks; holds one
 * entry per open chunk, so it stays tiny.
 */
export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #less: (a: T, b: T) => boolean;

  public constructor(less: (a: T, b: T) => boolean) {
    this.#less = less;
  }

  public get size(): number {
    return this.#items.length;
  }

  /** The smallest item, or undefined when empty. */
  public peek(): T | undefined {
    return this.#items[0];
  }

  public push(item: T): this {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(items[i]!, items[parent]!)) {
        break;
      }
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
    return this;
  }

  /** Removes and returns the smallest item. */
  public pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last != undefined) {
      items[0] = last;
      this.#siftDown(0);
    }
    return top;
  }

  /** Re-positions the top item after its key grew (cheaper than pop + push). */
  public updateTop(): void {
    if (this.#items.length > 1) {
      this.#siftDown(0);
    }
  }

  #siftDown(start: number): void {
    const items = this.#items;
    const n = items.length;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.#less(items[l]!, items[m]!)) {
        m = l;
      }
      if (r < n && this.#less(items[r]!, items[m]!)) {
        m = r;
      }
      if (m === i) {
        return;
      }
      [items[i], items[m]] = [items[m]!, items[i]!];
      i = m;
    }
  }
}
