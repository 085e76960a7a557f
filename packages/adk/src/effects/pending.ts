import type { JournaledArtifacts } from "@artifact-kit/effects";
import type { AdkSessionKey } from "../location.js";

/** A journaled put waiting for the session event that records it. */
export interface PendingPut {
  readonly effectId: string;
  readonly writer: JournaledArtifacts;
}

/**
 * The puts of each session not yet recorded by a durable event, by ADK filename and version
 * (as an event's `artifactDelta` names them). Bounded: past `max`, the oldest is forgotten,
 * which loses nothing: its effect stays `applied` in the journal for the reconciler.
 */
export class PendingPuts {
  readonly #max: number;
  readonly #puts = new Map<string, PendingPut>();

  constructor(max: number) {
    this.#max = max;
  }

  static key(session: AdkSessionKey, filename: string, adkVersion: number): string {
    return JSON.stringify([
      session.appName,
      session.userId,
      session.sessionId,
      filename,
      adkVersion,
    ]);
  }

  add(key: string, put: PendingPut): void {
    this.#puts.set(key, put);
    if (this.#puts.size > this.#max) {
      const oldest = this.#puts.keys().next().value;
      if (oldest !== undefined) this.#puts.delete(oldest);
    }
  }

  /** The pending puts an event's artifact delta names, removed from the waiting list. */
  take(session: AdkSessionKey, artifactDelta: Readonly<Record<string, number>>): PendingPut[] {
    const taken: PendingPut[] = [];
    for (const [filename, version] of Object.entries(artifactDelta)) {
      const key = PendingPuts.key(session, filename, version);
      const put = this.#puts.get(key);
      if (put === undefined) continue;
      this.#puts.delete(key);
      taken.push(put);
    }
    return taken;
  }
}
