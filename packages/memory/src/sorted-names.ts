import { compareUtf8 } from "@artifact-kit/core";
import { indexAfter, indexFrom, namePageStart, type Page } from "@artifact-kit/core/adapter";

const identity = (name: string) => name;
const firstOf = (chunk: readonly string[]) => chunk[0] as string;
/** The first index whose name sorts after `name` (core's binary search). */
const after = (sorted: readonly string[], name: string) =>
  indexAfter(sorted, name, identity, compareUtf8);
const from = (sorted: readonly string[], name: string) =>
  indexFrom(sorted, name, identity, compareUtf8);

/** Chunks split above this many names; small enough that a splice inside one is cheap. */
const MAX_CHUNK = 1024;

/**
 * Names in UTF-8 byte order, kept in chunks of at most MAX_CHUNK sorted names. Insert and
 * remove cost two binary searches and a splice inside one chunk, so a put of a new name costs
 * the same in a scope of 100 names as in one of 200,000 (one sorted array would move every
 * later name); a page is read from the chunk that holds the cursor onwards.
 */
export class SortedNames {
  readonly #chunks: string[][] = [];
  #size = 0;

  get size(): number {
    return this.#size;
  }

  insert(name: string): void {
    const chunk = this.#chunks[this.#chunkIndexFor(name)];
    if (!chunk) {
      this.#chunks.push([name]);
      this.#size += 1;
      return;
    }
    const index = after(chunk, name);
    if (chunk[index - 1] === name) return;
    chunk.splice(index, 0, name);
    this.#size += 1;
    if (chunk.length > MAX_CHUNK) {
      const at = this.#chunks.indexOf(chunk);
      this.#chunks.splice(at + 1, 0, chunk.splice(MAX_CHUNK / 2));
    }
  }

  remove(name: string): void {
    const chunkIndex = this.#chunkIndexFor(name);
    const chunk = this.#chunks[chunkIndex];
    if (!chunk) return;
    const index = after(chunk, name) - 1;
    if (chunk[index] !== name) return;
    chunk.splice(index, 1);
    this.#size -= 1;
    if (chunk.length === 0) this.#chunks.splice(chunkIndex, 1);
  }

  /**
   * Up to `limit` names after the exclusive `cursor` (and starting with `prefix`, when given),
   * and the cursor of the next page.
   */
  page(request: {
    cursor: string | undefined;
    limit: number;
    prefix: string | undefined;
  }): Page<string, string> {
    const { limit, prefix } = request;
    const start = namePageStart(request);
    let chunkIndex = start === undefined ? 0 : this.#chunkIndexFor(start.from);
    const first = this.#chunks[chunkIndex];
    let index =
      start === undefined || first === undefined
        ? 0
        : start.inclusive
          ? from(first, start.from)
          : after(first, start.from);
    const items: string[] = [];
    let more = false;
    scan: for (; chunkIndex < this.#chunks.length; chunkIndex++, index = 0) {
      const chunk = this.#chunks[chunkIndex] as string[];
      for (; index < chunk.length; index++) {
        const name = chunk[index] as string;
        if (prefix !== undefined && !name.startsWith(prefix)) break scan;
        if (items.length === limit) {
          more = true;
          break scan;
        }
        items.push(name);
      }
    }
    const last = items[items.length - 1];
    return more && last !== undefined ? { items, nextCursor: last } : { items };
  }

  *[Symbol.iterator](): IterableIterator<string> {
    for (const chunk of this.#chunks) yield* chunk;
  }

  /** The chunk whose range holds `name`: the last one whose first name is not above it. */
  #chunkIndexFor(name: string): number {
    return Math.max(0, indexAfter(this.#chunks, name, firstOf, compareUtf8) - 1);
  }
}
