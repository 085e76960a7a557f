import type { ArtifactService, Scope } from "@artifact-kit/core";
import type { Workload } from "../measure.js";

interface FanOut {
  /** Writers per operation, each putting to its own name. */
  readonly writers: number;
  /** Puts each writer makes, one after another, per operation (default 1). */
  readonly putsPerWriter?: number;
  /** Scopes the writers are spread over. */
  readonly scopes: number;
  /** All writers at once, or one writer after another. */
  readonly concurrent: boolean;
}

/** Versions per name after which the store is replaced (untimed), far below the per-name ceiling. */
const VERSIONS_PER_STORE = 500;

/**
 * One operation = `writers` writers, each making `putsPerWriter` puts of `bytes` in turn,
 * spread over `scopes` scopes of one service.
 */
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
  const putsPerWriter = fanOut.putsPerWriter ?? 1;
  let versions = 0;
  const reset = async () => {
    await (await service)?.close();
    service = open();
    versions = 0;
  };
  return {
    prepare: reset,
    run: async () => {
      const store = await service;
      if (!store) throw new Error("fan-out run before prepare");
      versions += putsPerWriter;
      const write = async ({ scope, name }: (typeof targets)[number]) => {
        for (let put = 0; put < putsPerWriter; put += 1) await store.put(scope, name, bytes);
      };
      if (fanOut.concurrent) {
        await Promise.all(targets.map(write));
      } else {
        for (const target of targets) await write(target);
      }
    },
    afterSample: async () => {
      if (versions >= VERSIONS_PER_STORE) await reset();
    },
    finish: async () => {
      await (await service)?.close();
    },
  };
}

export function sessionScope(index: number): Scope {
  return { kind: "session", app: "bench", user: "user-1", session: `session-${index}` };
}
