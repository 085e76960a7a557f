import type { ArtifactService, ArtifactTransfer } from "@artifact-kit/core";
import { type ConformanceCheck, check, type Law } from "@artifact-kit/core/conformance";
import { vi } from "vitest";
import type { ShardedArtifactServiceOptions } from "../options.js";
import type { RouterStatus } from "../service.js";
import type { ShardFactory } from "../shard.js";

/** What the kit drives: a router with its status, serving what its workers serve. */
export interface RouterUnderTest extends ArtifactService, ArtifactTransfer {
  status(): RouterStatus;
}

export interface ShardedRouterConformanceOptions {
  /**
   * A new router over `factory` (the kit's instrumented workers, or memory workers) with
   * `options`. Called several times per law: two routers on one factory are two processes
   * on one backend.
   */
  create: (factory: ShardFactory, options?: ShardedArtifactServiceOptions) => RouterUnderTest;
  /** Runs only the laws whose name contains this text. */
  only?: string;
  /** Per-law time limit in vitest (default 120,000 ms): a limit for hangs, not for speed. */
  testTimeoutMs?: number;
}

/** Which of the clock's parts a law fakes (vitest's fake timers; Date alone by default). */
export type FakedClock = "Date" | "setTimeout" | "clearTimeout" | "setInterval" | "clearInterval";

/** What a router law's body works with. */
export interface RouterContext {
  /** A router from the subject; every one is closed when the law ends. */
  router(factory: ShardFactory, options?: ShardedArtifactServiceOptions): RouterUnderTest;
  /**
   * The subject's clock, taken over for the law: from now on `advance` alone moves it, so that
   * a timer is driven to one millisecond before its edge and to the edge, in no real time.
   */
  fakeClock(parts?: readonly FakedClock[]): void;
  /** Moves the faked clock on by `ms`, running every timer due (and the work they start). */
  advance(ms: number): Promise<void>;
}

export type RouterLaw = Law<RouterContext>;

/** Registers a router law, in the shape of every law of the kits. */
export const law = (group: string, name: string, body: (context: RouterContext) => Promise<void>) =>
  check<RouterContext>(group, name, body);

const ALL_TIMERS: readonly FakedClock[] = [
  "Date",
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
];

/** Binds a law to the subject: fresh routers, the real clock back and every router closed after. */
export function bindRouterLaw(
  routerLaw: RouterLaw,
  options: ShardedRouterConformanceOptions,
): ConformanceCheck {
  return {
    name: `${routerLaw.group}: ${routerLaw.name}`,
    run: async () => {
      const routers: RouterUnderTest[] = [];
      const context: RouterContext = {
        router: (factory, routerOptions) => {
          const router = options.create(factory, routerOptions);
          routers.push(router);
          return router;
        },
        fakeClock: (parts = ALL_TIMERS) => {
          vi.useFakeTimers({ toFake: [...parts] });
        },
        advance: async (ms) => {
          await vi.advanceTimersByTimeAsync(ms);
        },
      };
      try {
        await routerLaw.body(context);
      } finally {
        vi.useRealTimers();
        for (const router of routers) await router.close().catch(() => undefined);
      }
      return undefined;
    },
  };
}
