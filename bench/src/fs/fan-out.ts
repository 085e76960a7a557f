import type { ArtifactService, Scope } from "@artifact-kit/core";
import type { Workload } from "../measure.js";

export interface FanOut {
  /** Puts per operation, each to its own name. */
  readonly writers: number;
  /** Scopes the writers are spread over. */
  readonly scopes: number;
  /** All puts at once, or one after another. */
  readonly concurrent: boolean;
}

/** Operations after which the store is replaced (untimed), far below the per-name ceiling. */
const ROUNDS_PER_STORE = 500;

/** One operation = `writers` puts of `bytes`, spread over `scopes` scopes of one service. */
export function fanOutWorkload(
  open: () => Promise<ArtifactService>,
  bytes: Uint8Array,
  fanOut: FanOut,
): Workload {
  const targets = Array.from({ length: fanOut.writers }, (_, writer) => ({
    scope: sessionScope(writer % fanOut.scopes),
    name: `part-${writer}.bin`,
  }));
  let service: Promise<ArtifactService> | undefined;
  let rounds = 0;
  const reset = async () => {
    await (await service)?.close();
    service = open();
    rounds = 0;
  };
  return {
    prepare: reset,
    run: async () => {
      const store = await service;
      if (!store) throw new Error("fan-out run before prepare");
      rounds += 1;
      if (fanOut.concurrent) {
        await Promise.all(targets.map(({ scope, name }) => store.put(scope, name, bytes)));
      } else {
        for (const { scope, name } of targets) await store.put(scope, name, bytes);
      }
    },
    afterSample: async () => {
      if (rounds >= ROUNDS_PER_STORE) await reset();
    },
    finish: async () => {
      await (await service)?.close();
    },
  };
}

function sessionScope(index: number): Scope {
  return { kind: "session", app: "bench", user: "user-1", session: `session-${index}` };
}
