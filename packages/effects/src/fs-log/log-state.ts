import { corruptArtifact } from "@artifact-kit/core";
import type { Stored } from "../journal-base.js";
import type { Frame, FrameChange } from "./frames.js";

function isKnownChange(change: unknown): change is FrameChange {
  if (typeof change !== "object" || change === null) return false;
  const { kind, record, effectId } = change as {
    kind?: unknown;
    record?: { effectId?: unknown };
    effectId?: unknown;
  };
  if (kind === "create" || kind === "swap" || kind === "carry") {
    return typeof record?.effectId === "string";
  }
  return kind === "seal" || (kind === "remove" && typeof effectId === "string");
}

/** What a frame did: taken, refused by the rule of its kind, or too late (after the seal). */
export type FrameOutcome = "applied" | "void" | "sealed";

/**
 * The journal's state as one segment of the log says it is: every reader replays the same
 * frames in the same order with these rules, so every process agrees on which of two racing
 * changes took effect without any lock (the order of appends is the arbiter).
 */
export class LogState {
  readonly effects = new Map<string, Stored>();
  /** Ids removed in this segment: a carried record must not bring one back. */
  readonly #removed = new Set<string>();
  #sealed = false;
  /** Frames taken, seal excluded: how much a new segment would save (see `worthRolling`). */
  #frames = 0;

  get sealed(): boolean {
    return this.#sealed;
  }

  apply(frame: Frame): FrameOutcome {
    if (this.#sealed) return "sealed";
    const outcome = this.#take(frame);
    if (outcome === "applied") this.#frames++;
    return outcome;
  }

  /** True when a segment started from this state would hold far fewer frames. */
  worthRolling(minFrames: number): boolean {
    return this.#frames >= minFrames && this.#frames >= 4 * this.effects.size;
  }

  #take({ change }: Frame): FrameOutcome {
    if (!isKnownChange(change)) {
      // Whole (its digest matches) yet of no kind this version knows: written by a later
      // version. Replaying past it could make this process disagree with that one.
      throw corruptArtifact("the journal holds a change this version cannot read", {});
    }
    switch (change.kind) {
      case "create": {
        const { effectId } = change.record;
        if (this.effects.has(effectId)) return "void";
        this.effects.set(effectId, { record: change.record, revision: 1 });
        return "applied";
      }
      case "swap": {
        const { effectId } = change.record;
        if (this.effects.get(effectId)?.revision !== change.base) return "void";
        this.effects.set(effectId, { record: change.record, revision: change.base + 1 });
        return "applied";
      }
      case "remove":
        if (!this.effects.delete(change.effectId)) return "void";
        this.#removed.add(change.effectId);
        return "applied";
      case "carry": {
        const { effectId } = change.record;
        if (this.effects.has(effectId) || this.#removed.has(effectId)) return "void";
        this.effects.set(effectId, { record: change.record, revision: change.revision });
        return "applied";
      }
      case "seal":
        this.#sealed = true;
        return "applied";
    }
  }
}
