import { createHash } from "node:crypto";
import type { EffectRecord } from "../types.js";

// The fs journal's log is a sequence of frames, each written by one append:
//
//   magic (4 bytes) | payload length (u32 LE) | first 8 bytes of the payload's SHA-256 | payload
//
// The payload is JSON (UTF-8). The magic starts with 0xff 0x00, which no JSON text holds (JSON
// escapes U+0000 and 0xff is never a UTF-8 byte), so a reader can find the next frame after
// bytes that are not one: the tail of an append a SIGKILL cut short, or blocks a power loss
// left unwritten. Such bytes never held an acknowledged change.

const MAGIC = Buffer.from([0xff, 0x00, 0x4a, 0x31]); // "\xff\0J1"
const HEADER_BYTES = MAGIC.byteLength + 4 + 8;
/**
 * No valid frame is longer: a record is bounded by the journal's limits (ids, owner,
 * correlation, error text) well below this.
 */
export const MAX_FRAME_PAYLOAD_BYTES = 256 * 1024;

/** What a frame asks of the log; the replay (log-state.ts) decides whether it takes effect. */
export type FrameChange =
  /** Records a new effect, unless its id is taken. */
  | { readonly kind: "create"; readonly record: EffectRecord }
  /** Replaces an effect's record, only if it is still at revision `base`. */
  | { readonly kind: "swap"; readonly base: number; readonly record: EffectRecord }
  /** Removes a settled effect (prune). */
  | { readonly kind: "remove"; readonly effectId: string }
  /**
   * Carries an effect's record at `revision` into a segment (the state a new segment starts
   * from) or from a journal of the layout before the log; taken only if the id is absent and
   * was not removed in this segment.
   */
  | {
      readonly kind: "carry";
      readonly revision: number;
      readonly record: EffectRecord;
    }
  /** Ends the segment: every frame after it is void, and its writer retries in the next. */
  | { readonly kind: "seal" };

/** A change and the writer's nonce, by which the writer finds its own frame when it reads. */
export interface Frame {
  readonly nonce?: string;
  readonly change: FrameChange;
}

function digestOf(payload: Buffer): Buffer {
  return createHash("sha256").update(payload).digest().subarray(0, 8);
}

export function encodeFrame(frame: Frame): Buffer {
  const payload = Buffer.from(JSON.stringify(frame), "utf8");
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(payload.byteLength, MAGIC.byteLength);
  digestOf(payload).copy(header, MAGIC.byteLength + 4);
  return Buffer.concat([header, payload]);
}

/** What a reader finds at an offset of the bytes it has read. */
export type Parsed =
  | { readonly kind: "frame"; readonly frame: Frame; readonly bytes: number }
  /** The bytes end before the frame does: an append still being read, or the tail. */
  | { readonly kind: "short" }
  /** Not a frame: a torn append or unwritten blocks. */
  | { readonly kind: "invalid" };

export function parseFrame(bytes: Buffer, at: number): Parsed {
  const available = bytes.byteLength - at;
  const magicSeen = Math.min(available, MAGIC.byteLength);
  if (bytes.compare(MAGIC, 0, magicSeen, at, at + magicSeen) !== 0) return { kind: "invalid" };
  if (available < HEADER_BYTES) return { kind: "short" };
  const length = bytes.readUInt32LE(at + MAGIC.byteLength);
  if (length > MAX_FRAME_PAYLOAD_BYTES) return { kind: "invalid" };
  if (available < HEADER_BYTES + length) return { kind: "short" };
  const payload = bytes.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length);
  const digest = bytes.subarray(at + MAGIC.byteLength + 4, at + HEADER_BYTES);
  if (!digestOf(payload).equals(digest)) return { kind: "invalid" };
  let frame: Frame;
  try {
    frame = JSON.parse(payload.toString("utf8")) as Frame;
  } catch {
    return { kind: "invalid" };
  }
  return { kind: "frame", frame, bytes: HEADER_BYTES + length };
}

/** The offset of the next whole frame after `at`, if the bytes hold one. */
export function nextFrameAfter(bytes: Buffer, at: number): number | undefined {
  for (
    let next = bytes.indexOf(MAGIC, at + 1);
    next !== -1;
    next = bytes.indexOf(MAGIC, next + 1)
  ) {
    if (parseFrame(bytes, next).kind === "frame") return next;
  }
  return undefined;
}
