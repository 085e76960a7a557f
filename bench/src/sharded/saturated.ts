import type { ArtifactService } from "@artifact-kit/core";
import { sessionScope } from "../fs/fan-out.js";
import type { Workload } from "../measure.js";

interface Saturation {
  /** Puts the saturating scope keeps in flight, each writer to its own name. */
  readonly writers: number;
  readonly bytes: Uint8Array;
}

/** Versions per name after which a writer moves to a new name, far below the per-name ceiling. */
const VERSIONS_PER_NAME = 1_000;

/**
 * One operation = one put of `bytes` into a quiet scope, while another scope of the same
 * service is kept saturated by `saturation.writers` writers putting without pause. Each phase
 * opens a fresh service and starts the load (untimed); the load stops at the end of the phase.
 */
export function putBesideSaturatedScopeWorkload(
  open: () => Promise<ArtifactService>,
  bytes: Uint8Array,
  saturation: Saturation,
): Workload {
  const quiet = sessionScope(0);
  const busy = sessionScope(1);
  let service: ArtifactService | undefined;
  let load: Promise<unknown> | undefined;
  let stopping = false;
  let puts = 0;

  const saturate = async (store: ArtifactService, writer: number) => {
    for (let put = 0; !stopping; put += 1) {
      const name = `load-${writer}-${Math.floor(put / VERSIONS_PER_NAME)}.bin`;
      await store.put(busy, name, saturation.bytes);
    }
  };
  const stop = async () => {
    stopping = true;
    await load;
    await service?.close();
    service = undefined;
  };
  return {
    prepare: async () => {
      await stop();
      const store = await open();
      service = store;
      stopping = false;
      puts = 0;
      load = Promise.all(
        Array.from({ length: saturation.writers }, (_, writer) => saturate(store, writer)),
      );
    },
    run: async () => {
      if (!service) throw new Error("saturated-scope run before prepare");
      puts += 1;
      return service.put(quiet, `probe-${Math.floor(puts / VERSIONS_PER_NAME)}.bin`, bytes);
    },
    endPhase: stop,
  };
}
