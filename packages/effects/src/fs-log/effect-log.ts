import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, link, lstat, mkdir, open, readdir, rm, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { unavailable } from "@artifact-kit/core";
import type { Stored } from "../journal-base.js";
import { encodeFrame, type FrameChange, nextFrameAfter, parseFrame } from "./frames.js";
import { errorCode, syncDirectory } from "./fs-calls.js";
import { type FrameOutcome, LogState } from "./log-state.js";

const SEGMENT_FILE = /^(\d{10})\.log$/;
const segmentFile = (segment: number) => `${String(segment).padStart(10, "0")}.log`;
/** Opens a segment to read it and to append to it, never creating it. */
const SEGMENT_FLAGS = constants.O_RDWR | constants.O_APPEND;
/** A segment being written in full (a roll) younger than this may still be linked: kept. */
const STAGING_GRACE_MS = 60_000;
/**
 * For the power-loss trials only: rolls at a few frames, so that cuts land in rolls; and no
 * sync at all, to prove that the trials find what a missing sync loses.
 */
export const testOnlyLog = {
  /** Below this many frames a segment is never rolled: the copy would save nothing worth it. */
  minRollFrames: 4096,
  skipSync: false,
};
/**
 * What a catch-up reads at once: a change is a few hundred bytes, and a replay at open goes
 * through a long log a window at a time, so memory stays bounded whatever the log's length.
 */
const READ_WINDOW_BYTES = 64 * 1024;

interface Segment {
  readonly number: number;
  readonly handle: FileHandle;
}

/**
 * The fs journal's log: numbered segments in one directory, of which the highest is the one
 * written. Every change is one append (O_APPEND: the kernel places each write whole after the
 * last, so processes sharing the directory never interleave), and a writer learns whether its
 * change took effect by reading the log up to its own frame and replaying it (log-state.ts):
 * a compare-and-swap without locks. A change that must survive a power loss is then synced
 * with one `fdatasync`, which makes every frame before it durable too; nothing else (no
 * inode, no directory entry) changes on the way, so a journaled put's syncs do not commit
 * the journal's metadata.
 *
 * The log is compacted by a roll: a seal frame ends the segment, and the next segment is
 * written whole from the sealed state (a copy of every effect's record and revision), synced
 * and linked under the next number; whoever reads the seal first and finds no next segment
 * writes it, so a roller that dies leaves nothing stuck. Changes appended after the seal are
 * void, and their writers make them again in the next segment.
 */
export class EffectLog {
  readonly #dir: string;
  /** Marks this process's frames, so that a reader recognises its own. */
  readonly #writer = randomUUID();
  #nonces = 0;
  #segment: Segment;
  #state = new LogState();
  /** Bytes of the current segment replayed so far. */
  #offset = 0;
  /** Outcomes of this process's frames, read and not yet collected by their writers. */
  readonly #outcomes = new Map<string, FrameOutcome>();
  /** Catch-ups run one at a time; one not started yet serves every caller that joins it. */
  #running: Promise<void> = Promise.resolve();
  #queued: Promise<void> | undefined;
  #window = Buffer.allocUnsafeSlow(READ_WINDOW_BYTES);

  private constructor(dir: string, segment: Segment) {
    this.#dir = dir;
    this.#segment = segment;
  }

  static async open(dir: string): Promise<EffectLog> {
    await makeDurableDirectory(dir);
    const log = new EffectLog(dir, await openOrCreateFirst(dir));
    try {
      await log.catchUp();
    } catch (error) {
      await log.close().catch(() => {});
      throw error;
    }
    return log;
  }

  /**
   * Appends `change`; how it came out. `durable`: an applied change is synced before this
   * returns. A change that lands after a seal is made again in the next segment, except a
   * seal (any seal ends the segment).
   */
  async append(change: FrameChange, durable: boolean): Promise<Exclude<FrameOutcome, "sealed">> {
    for (;;) {
      const segment = this.#segment;
      const nonce = `${this.#writer}.${this.#nonces++}`;
      const frame = encodeFrame({ nonce, change });
      let bytesWritten: number;
      try {
        ({ bytesWritten } = await segment.handle.write(frame, 0, frame.byteLength, null));
      } catch (error) {
        // The segment was sealed and closed while this write waited: make it in the next.
        if (segment !== this.#segment) continue;
        throw error;
      }
      if (bytesWritten !== frame.byteLength) {
        throw unavailable(`the journal appended ${bytesWritten} of ${frame.byteLength} bytes`);
      }
      await this.catchUp();
      const outcome =
        this.#outcomes.get(nonce) ?? (segment === this.#segment ? undefined : "sealed");
      this.#outcomes.delete(nonce);
      if (outcome === undefined) throw unavailable("the journal's append was not read back");
      if (outcome === "sealed") {
        if (change.kind === "seal") return "void";
        continue;
      }
      if (outcome === "applied" && durable) await this.#syncFrameIn(segment);
      return outcome;
    }
  }

  /**
   * Syncs a frame applied in `segment`. Once the log has moved past it (and closed it), the
   * next segment holds the change: it was written from the sealed state and synced before it
   * was linked.
   */
  async #syncFrameIn(segment: Segment): Promise<void> {
    if (testOnlyLog.skipSync) return;
    try {
      await segment.handle.datasync();
    } catch (error) {
      if (segment === this.#segment) throw error;
    }
  }

  async read(effectId: string): Promise<Stored | undefined> {
    await this.catchUp();
    return this.#state.effects.get(effectId);
  }

  /** Every effect's record as of now (a copy: later changes do not show). */
  async snapshot(): Promise<Stored[]> {
    await this.catchUp();
    return [...this.#state.effects.values()];
  }

  /** Makes every frame appended so far durable. */
  async sync(): Promise<void> {
    await this.catchUp();
    await this.#segment.handle.datasync();
  }

  /** Starts a new segment from the current state when that would shed most of the log. */
  async compact(): Promise<void> {
    await this.catchUp();
    if (!this.#state.worthRolling(testOnlyLog.minRollFrames)) return;
    await this.append({ kind: "seal" }, false);
  }

  /** Replays what other processes (and this one) appended since the last catch-up. */
  catchUp(): Promise<void> {
    if (this.#queued) return this.#queued;
    const run = this.#running.then(() => {
      this.#queued = undefined;
      return this.#readNew();
    });
    this.#queued = run;
    this.#running = run.catch(() => {});
    return run;
  }

  /**
   * Removes segments below the current one and roll copies a dead roller left, last touched
   * before `before`, up to `limit`.
   */
  async sweep(before: number, limit: number): Promise<void> {
    const cutoff = Math.min(before, Date.now() - STAGING_GRACE_MS);
    let removed = 0;
    for (const name of await readdir(this.#dir)) {
      if (removed >= limit) return;
      const segment = SEGMENT_FILE.exec(name)?.[1];
      const stale =
        segment === undefined ? name.endsWith(".tmp") : Number(segment) < this.#segment.number;
      if (!stale) continue;
      const path = join(this.#dir, name);
      try {
        if (segment === undefined && (await lstat(path)).mtimeMs >= cutoff) continue;
        await rm(path, { force: true });
        removed++;
      } catch (error) {
        if (errorCode(error) !== "ENOENT") throw error;
      }
    }
  }

  async close(): Promise<void> {
    await this.#running;
    await this.#segment.handle.close();
  }

  async #readNew(): Promise<void> {
    let window = READ_WINDOW_BYTES;
    for (;;) {
      if (this.#state.sealed) await this.#advance();
      const bytes = await this.#readWindow(this.#offset, window);
      const consumed = await this.#replay(bytes);
      this.#offset += consumed;
      if (this.#state.sealed) continue;
      // Short of the window: the end as of this read; what is appended after it is for the
      // next catch-up. A full one with not one frame replayed holds a frame (or bytes that are
      // none) longer than the window: read a wider one.
      if (bytes.byteLength < window) return;
      window = consumed === 0 ? window * 2 : READ_WINDOW_BYTES;
    }
  }

  /** Replays the whole frames in `bytes` (read at `#offset`); how many bytes it consumed. */
  async #replay(read: Buffer): Promise<number> {
    let bytes = read;
    let at = 0;
    while (at < bytes.byteLength && !this.#state.sealed) {
      const parsed = parseFrame(bytes, at);
      if (parsed.kind === "frame") {
        const { nonce } = parsed.frame;
        const outcome = this.#state.apply(parsed.frame);
        if (nonce?.startsWith(this.#writer)) this.#outcomes.set(nonce, outcome);
        at += parsed.bytes;
        continue;
      }
      const next = nextFrameAfter(bytes, at);
      if (next === undefined) break; // the tail: an append still being written, or torn
      // A whole frame follows, so the bytes at `at` were final when it was read (appends are
      // made one after another); read them again, in case this read met them mid-append.
      const again = await this.#readRange(this.#offset + at, next - at);
      const retry = Buffer.concat([again, bytes.subarray(next)]);
      if (parseFrame(retry, 0).kind === "frame") {
        bytes = Buffer.concat([bytes.subarray(0, at), retry]);
        continue;
      }
      at = next; // a torn append or unwritten blocks: never an acknowledged change
    }
    return at;
  }

  /**
   * Up to `length` bytes at `offset`, in a buffer this log reuses: a replay keeps nothing of
   * the bytes it parses, and catch-ups run one at a time.
   */
  async #readWindow(offset: number, length: number): Promise<Buffer> {
    if (this.#window.byteLength < length) this.#window = Buffer.allocUnsafeSlow(length);
    const { bytesRead } = await this.#segment.handle.read(this.#window, 0, length, offset);
    return this.#window.subarray(0, bytesRead);
  }

  async #readRange(offset: number, length: number): Promise<Buffer> {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.#segment.handle.read(buffer, 0, length, offset);
    return buffer.subarray(0, bytesRead);
  }

  /**
   * Moves past the sealed segment: to the newest segment above it, written from the sealed
   * state when there is none. The newest, not the next: while this process lagged, the next
   * may have been sealed and removed in turn, and each segment starts from the whole state.
   */
  async #advance(): Promise<void> {
    const sealed = this.#segment;
    let next = await openNewestSegment(this.#dir, sealed.number);
    if (next === undefined) {
      await this.#writeSegment(sealed.number + 1);
      next = await openNewestSegment(this.#dir, sealed.number);
    }
    if (next === undefined) throw unavailable(`journal segment ${sealed.number + 1} vanished`);
    this.#segment = next;
    this.#state = new LogState();
    this.#offset = 0;
    await sealed.handle.close();
  }

  /**
   * Writes a segment holding the sealed state, synced before it is linked under its number
   * (link never replaces: of several writers one wins, and all wrote the same state); the
   * winner then removes the sealed segment.
   */
  async #writeSegment(number: number): Promise<void> {
    const path = join(this.#dir, segmentFile(number));
    const staged = join(this.#dir, `${segmentFile(number)}.${randomUUID()}.tmp`);
    const frames = [...this.#state.effects.values()].map(({ record, revision }) =>
      encodeFrame({ change: { kind: "carry", revision, record } }),
    );
    const handle = await open(staged, "wx");
    try {
      await handle.writeFile(Buffer.concat(frames));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(staged, path);
      await syncDirectory(this.#dir);
      await unlink(join(this.#dir, segmentFile(this.#segment.number))).catch(() => {});
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error;
    } finally {
      await unlink(staged).catch(() => {});
    }
  }
}

async function openSegment(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, SEGMENT_FLAGS);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * Makes `dir` and any missing parent, each made durable in its parent: a directory's entry
 * is lost with the power until the directory holding it is synced.
 */
async function makeDurableDirectory(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined) return;
  for (let made = dir; ; made = dirname(made)) {
    await syncDirectory(dirname(made));
    if (made === first) return;
  }
}

/** The highest segment numbered above `above`; undefined when there is none. */
async function openNewestSegment(dir: string, above: number): Promise<Segment | undefined> {
  for (;;) {
    const numbers = (await readdir(dir))
      .map((name) => SEGMENT_FILE.exec(name)?.[1])
      .filter((digits): digits is string => digits !== undefined)
      .map(Number)
      .filter((number) => number > above);
    if (numbers.length === 0) return undefined;
    const newest = Math.max(...numbers);
    const handle = await openSegment(join(dir, segmentFile(newest)));
    if (handle) return { number: newest, handle };
    // Removed by a roll between the listing and the open: list again.
  }
}

/** The highest segment, or segment 1 made empty in a new journal. */
async function openOrCreateFirst(dir: string): Promise<Segment> {
  for (;;) {
    const newest = await openNewestSegment(dir, 0);
    if (newest) return newest;
    try {
      const flags = SEGMENT_FLAGS | constants.O_CREAT | constants.O_EXCL;
      const handle = await open(join(dir, segmentFile(1)), flags);
      try {
        await syncDirectory(dir);
      } catch (error) {
        await handle.close();
        throw error;
      }
      return { number: 1, handle };
    } catch (error) {
      if (errorCode(error) !== "EEXIST") throw error; // another process made it first
    }
  }
}
