import type { Fault, FaultProxy } from "@artifact-kit/test-proxy";
import type { SeededRandom } from "./random.js";
import type { ServerRelay } from "./relay.js";

/**
 * The faults a trial arms: the reply of a request that landed is lost ("drop-response"), the
 * server refuses with its own 503 ("unavailable"), both given by the fault proxy; or the
 * request is held before it reaches the server ("delay", by the relay behind the proxy), past
 * the operation's deadline when it is long enough, and then lands all the same.
 */
export type FaultKind = "drop-response" | "unavailable" | "delay";

export interface ArmedFault {
  readonly kind: FaultKind;
  /** Which request of the operation it hits, counted from 0. */
  readonly atRequest: number;
  /** Set once a request was hit: an operation may make fewer requests than that. */
  fired: boolean;
}

/** Longest hold of a delayed request. */
export const MAX_DELAY_MS = 3_000;

/**
 * Arms one fault of a random kind on a random one of the next requests of an operation.
 */
export function armRandomFault(
  random: SeededRandom,
  proxy: FaultProxy,
  relay: ServerRelay,
  unavailable: Fault,
): ArmedFault {
  const kind = random.weighted<FaultKind>({ "drop-response": 4, unavailable: 3, delay: 3 });
  const armed: ArmedFault = { kind, atRequest: random.int(0, 3), fired: false };
  if (kind === "delay") {
    relay.holdRequest(armed.atRequest, random.int(50, MAX_DELAY_MS), () => {
      armed.fired = true;
    });
    return armed;
  }
  let seen = 0;
  proxy.inject(
    () => {
      if (seen++ !== armed.atRequest) return false;
      armed.fired = true;
      return true;
    },
    kind === "drop-response" ? "drop-response" : unavailable,
  );
  return armed;
}
