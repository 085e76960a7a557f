import type { Scope } from "@artifact-kit/core";
import { seededRandom } from "@artifact-kit/test-proxy";

// What one trial's writer does: a few puts, streamed uploads and deletes, all drawn from the
// trial's seed, so that a failing trial replays exactly.

export const SCOPES: readonly Scope[] = [
  { kind: "session", app: "power", user: "u", session: "s" },
  { kind: "user", app: "power", user: "v" },
];
export const NAMES = ["a", "b/c", "é"] as const;
const STEPS_PER_TRIAL = 6;
const MAX_PUT_BYTES = 48 * 1024;
const MiB = 1024 * 1024;
/** Above the 8 MiB after which a streamed upload flushes in the background. */
export const LARGE_UPLOAD_BYTES = 9 * MiB;
const LARGE_UPLOAD_SHARE = 0.03;
/** Whole puts that carry an idempotency key. */
const KEYED_PUT_SHARE = 0.5;

export type Step =
  | {
      op: "put";
      scope: number;
      name: string;
      tag: string;
      fill: number;
      size: number;
      /** Chunk sizes of a streamed upload; absent for a plain put. */
      chunks?: number[];
      /** The idempotency key of a whole put that has one. */
      key?: string;
    }
  | {
      op: "delete";
      scope: number;
      name: string;
      selector: "latest" | "all" | "pick";
      pick: number;
    };

export function writerScript(seed: number): Step[] {
  const random = seededRandom(seed);
  const large = seededRandom(seed ^ 0x1a96e);
  // Keys are drawn from a generator of their own too: the steps stay as they were without.
  const keyed = seededRandom(seed ^ 0x6b3d);
  const below = (n: number) => Math.floor(random() * n);
  const steps: Step[] = [];
  const putTo: { scope: number; name: string }[] = [];
  for (let i = 0; i < STEPS_PER_TRIAL; i++) {
    const roll = random();
    // A delete goes to something put before (a delete of nothing writes nothing to cut).
    const target =
      roll >= 0.65 && putTo.length > 0
        ? (putTo[below(putTo.length)] as { scope: number; name: string })
        : { scope: below(SCOPES.length), name: NAMES[below(NAMES.length)] as string };
    const { scope, name } = target;
    if (roll < 0.65 || putTo.length === 0) {
      putTo.push(target);
      // Never shorter than its tag, so that the chunks below cover the whole payload.
      const size = 64 + below(MAX_PUT_BYTES);
      const step: Step = { op: "put", scope, name, tag: `${seed}.${i}`, fill: below(256), size };
      if (random() < 0.5) {
        step.chunks = [];
        for (let left = size; left > 0; ) {
          const chunk = Math.min(left, 1 + below(16 * 1024));
          step.chunks.push(chunk);
          left -= chunk;
        }
        // Now and then an upload long enough for the staging file's background fdatasync,
        // drawn from a generator of its own so that the other steps stay as they were.
        if (large() < LARGE_UPLOAD_SHARE) {
          step.size = LARGE_UPLOAD_BYTES + Math.floor(large() * MiB);
          step.chunks = [];
          for (let left = step.size; left > 0; left -= MiB) step.chunks.push(Math.min(left, MiB));
        }
      } else if (keyed() < KEYED_PUT_SHARE) {
        step.key = `key-${step.tag}`;
      }
      steps.push(step);
    } else {
      const selector = roll < 0.8 ? "latest" : roll < 0.9 ? "all" : "pick";
      steps.push({ op: "delete", scope, name, selector, pick: random() });
    }
  }
  return steps;
}

/** The bytes of a put: its tag, then its fill byte. */
export function payload(step: Extract<Step, { op: "put" }>): Uint8Array {
  const prefix = new TextEncoder().encode(`${step.tag};`);
  const data = new Uint8Array(step.size).fill(step.fill);
  data.set(prefix);
  return data;
}
