import fc from "fast-check";
import { type ArtifactTransfer, hasTransfer } from "../transfer.js";
import type { ArtifactMeta, ArtifactService, TransferCapabilities } from "../types.js";
import { ConformanceFailure, fail } from "./expect.js";
import { withinLawLimit } from "./law-limit.js";
import { PendingCalls } from "./pending-calls.js";
import {
  type ArtifactServiceConformanceOptions,
  reopenHolder,
  type ServiceHolder,
  type ServiceSubject,
  withSubject,
} from "./subject.js";

// Every check of the kit has one shape: check(group, name, body, { needs }). The name states
// the law; the body returns nothing when the law holds, a skip(reason) when it does not
// apply, and throws (through the kit's expect helpers) when it is broken.

/** A check either passes (resolves), fails (throws) or is skipped with the reason why. */
export interface Skip {
  readonly skipped: string;
}
export type CheckOutcome = Skip | undefined;

export const skip = (reason: string): Skip => ({ skipped: reason });

/** What a law needs from the subject; without it the check is skipped with the reason. */
export type Need =
  /** runs on `createBounded` (small quotas and pages) when given */
  | "bounded"
  /** the subject's `reopen` */
  | "reopen"
  /** the subject's `corrupt` */
  | "corrupt"
  /** the subject's `openAnother` (a second live instance on the same storage) */
  | "another"
  /** the subject's `faults` (a fault armed at its next backend request) */
  | "faults"
  /** the subject's `maintain` (its repair or migration, run as an operator would) */
  | "maintain"
  /** the subject's `openNeighbour` (a service under another prefix on the same backend) */
  | "neighbour"
  /** a transfer part declared in capabilities().transfer */
  | keyof TransferCapabilities;

/** What a law's body works with. */
export interface LawContext {
  /** The service under test (a new instance after `reopen`). */
  readonly service: ArtifactService;
  /** The same service, typed with native transfer (present when a transfer part is needed). */
  readonly transfer: ArtifactService & ArtifactTransfer;
  readonly options: ArtifactServiceConformanceOptions;
  /** Which hooks the subject gives. */
  readonly hooks: {
    readonly reopen: boolean;
    readonly corrupt: boolean;
    readonly another: boolean;
    readonly faults: boolean;
    readonly maintain: boolean;
  };
  /** Runs `body` on another fresh subject of the same kind (one per property run). */
  fresh<T>(body: (holder: ServiceHolder) => Promise<T>): Promise<T>;
  /** Closes the service and opens a new instance over the same storage. */
  reopen(): Promise<ArtifactService>;
  /** Flips one stored byte of `meta`'s data in the subject's storage. */
  corrupt(meta: ArtifactMeta, offset: number): Promise<void>;
  /** Runs the subject's maintenance (its `maintain` hook) over its storage. */
  maintain(): Promise<void>;
  /**
   * Checks a fast-check property with the kit's seed and run count (`runs` scales the
   * count); a failure carries the shrunk counterexample, seed and path into the report.
   */
  property<Ts extends [unknown, ...unknown[]]>(
    arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
    predicate: (...args: Ts) => Promise<void>,
    runs?: { scale?: number; min?: number },
  ): Promise<void>;
}

export type LawBody<C = LawContext> = (context: C) => Promise<CheckOutcome> | Promise<void>;

/** A law, before it is bound to a subject (C: what its body works with). */
export interface Law<C = LawContext> {
  readonly group: string;
  readonly name: string;
  readonly needs: readonly Need[];
  readonly body: LawBody<C>;
}

/** Registers a law: its group, its statement, its body and what it needs of the subject. */
export function check<C = LawContext>(
  group: string,
  name: string,
  body: LawBody<C>,
  { needs = [] }: { needs?: readonly Need[] } = {},
): Law<C> {
  return Object.freeze({ group, name, needs: Object.freeze([...needs]), body });
}

/** A law bound to a subject: what vitest and `runChecks` run. */
export interface ConformanceCheck {
  /** "group: the law" */
  readonly name: string;
  run(): Promise<CheckOutcome>;
}

/** A failed property: the shrunk counterexample and how to replay it. */
export class PropertyFailure extends ConformanceFailure {
  constructor(
    readonly reason: string,
    readonly counterexample: string,
    readonly seed: number,
    readonly path: string,
    /** fast-check's hint for replaying a shrunk command sequence exactly. */
    readonly replayPath: string | undefined,
  ) {
    super(reason);
  }
}

const TRANSFER_PARTS: readonly Need[] = ["streamingUpload", "streamingDownload", "byteRanges"];

/** The fast-check parameters every kit shares: run count, seed and replay path. */
export interface PropertyOptions {
  numRuns?: number;
  seed?: number;
  path?: string;
  replayPath?: string;
}

export function propertyRunner(options: PropertyOptions): LawContext["property"] {
  return async (arbitraries, predicate, runs = {}) => {
    const base = options.numRuns ?? 100;
    const numRuns = Math.max(runs.min ?? 1, Math.ceil(base * (runs.scale ?? 1)));
    const property = fc.asyncProperty(...(arbitraries as [fc.Arbitrary<unknown>]), (...args) =>
      predicate(...(args as never)),
    );
    const details = await fc.check(property, {
      numRuns,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.path === undefined ? {} : { path: options.path }),
    });
    if (!details.failed) return;
    const error = details.errorInstance;
    const reason = error instanceof Error ? error.message : String(error);
    const counterexample = details.counterexample
      ? details.counterexample.map((value) => fc.stringify(value)).join("\n  ")
      : "(none: the property failed to run)";
    const replayPath = /\/\*replayPath="([^"]*)"\*\//.exec(counterexample)?.[1];
    throw new PropertyFailure(
      reason,
      counterexample,
      details.seed,
      details.counterexamplePath ?? "",
      replayPath,
    );
  };
}

/** Binds `law` to the subjects in `options`; the run handles needs, skips and cleanup. */
export function bindLaw(
  law: Law,
  options: ArtifactServiceConformanceOptions,
  subjectName: string,
): ConformanceCheck {
  const name = `${law.group}: ${law.name}`;
  const create =
    law.needs.includes("bounded") && options.createBounded ? options.createBounded : options.create;
  return {
    name,
    run: async () => {
      const pending = new PendingCalls();
      try {
        return await withinLawLimit(
          options.testTimeoutMs,
          () =>
            withSubject(create, (holder) => runLaw(law, options, create, holder, pending), pending),
          pending,
        );
      } catch (error) {
        throw new ConformanceFailure(
          failureReport(name, `describeArtifactService(${JSON.stringify(subjectName)}`, error),
        );
      }
    },
  };
}

async function runLaw(
  law: Law,
  options: ArtifactServiceConformanceOptions,
  create: () => Promise<ServiceSubject>,
  holder: ServiceHolder,
  pending: PendingCalls,
): Promise<CheckOutcome> {
  const { subject } = holder;
  if (law.needs.includes("reopen") && !subject.reopen) {
    return skip("the subject gives no reopen: nothing to prove across a restart");
  }
  if (law.needs.includes("corrupt") && !subject.corrupt) {
    return skip("the subject gives no corrupt hook to damage stored bytes");
  }
  if (law.needs.includes("another") && !subject.openAnother) {
    return skip("the subject gives no openAnother: no second instance on the same storage");
  }
  if (law.needs.includes("neighbour") && !subject.openNeighbour) {
    return skip("the subject gives no openNeighbour: no other prefix on the same backend");
  }
  if (law.needs.includes("faults") && !subject.faults) {
    return skip("the subject gives no faults hook to fail its backend requests");
  }
  if (law.needs.includes("maintain") && !subject.maintain) {
    return skip("the subject gives no maintain hook: no repair or migration to prove harmless");
  }
  const parts = law.needs.filter((need) => TRANSFER_PARTS.includes(need));
  if (parts.length > 0) {
    const declared = holder.service.capabilities().transfer as TransferCapabilities | undefined;
    const missing = parts.filter((part) => !declared?.[part as keyof TransferCapabilities]);
    if (missing.length > 0) {
      return skip(`capabilities().transfer does not declare ${missing.join(", ")}`);
    }
    if (!hasTransfer(holder.service)) {
      fail("capabilities().transfer declares streaming, but openUpload / openDownload are missing");
    }
  }
  const context: LawContext = {
    get service() {
      return holder.service;
    },
    get transfer() {
      return holder.service as ArtifactService & ArtifactTransfer;
    },
    options,
    hooks: {
      reopen: subject.reopen !== undefined,
      corrupt: subject.corrupt !== undefined,
      another: subject.openAnother !== undefined,
      faults: subject.faults !== undefined,
      maintain: subject.maintain !== undefined,
    },
    fresh: (body) => withSubject(create, body, pending),
    reopen: () => reopenHolder(holder),
    corrupt: (meta, offset) => {
      if (!subject.corrupt) throw new TypeError("the subject has no corrupt hook");
      return subject.corrupt(meta, offset);
    },
    maintain: () => {
      if (!subject.maintain) throw new TypeError("the subject has no maintain hook");
      return subject.maintain();
    },
    property: propertyRunner(options),
  };
  return (await law.body(context)) ?? undefined;
}

/**
 * The report a person acts on: law, counterexample, reason, and how to replay it (`call`
 * is the start of the registering call, e.g. `describeArtifactService("fs"`).
 */
export function failureReport(name: string, call: string, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  const lines = [`law: ${name}`];
  if (error instanceof PropertyFailure) {
    lines.push(`counterexample (shrunk):\n  ${error.counterexample}`);
    lines.push(`reason: ${reason}`);
    lines.push(
      `replay: ${call}, { ...options, only: ${JSON.stringify(name)}, seed: ${error.seed}, path: ${JSON.stringify(error.path)}${error.replayPath === undefined ? "" : `, replayPath: ${JSON.stringify(error.replayPath)}`} })`,
    );
  } else {
    lines.push(`reason: ${reason}`);
    if (!(error instanceof ConformanceFailure) && error instanceof Error && error.stack) {
      lines.push(`stack: ${error.stack}`);
    }
    lines.push(`replay: ${call}, { ...options, only: ${JSON.stringify(name)} })`);
  }
  return lines.join("\n");
}
