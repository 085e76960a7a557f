import type { RunStore, RunStoreBoundsOptions } from "../../run-store.js";
import {
  type CheckOutcome,
  type ConformanceCheck,
  failureReport,
  type Law,
  type LawContext,
  propertyRunner,
  skip,
} from "../check.js";
import { ConformanceFailure } from "../expect.js";
import { withinLawLimit } from "../law-limit.js";
import { PendingCalls, RUN_STORE_SUBJECT_ROLES } from "../pending-calls.js";
import {
  type RunStoreConformanceOptions,
  type RunStoreHolder,
  type RunStoreSubject,
  reopenRunStore,
  withRunStore,
} from "./subject.js";

/** What a run-store law's body works with. */
export interface RunStoreContext {
  readonly options: RunStoreConformanceOptions;
  readonly hooks: { readonly reopen: boolean };
  /** A fresh subject with `bounds`, cleaned up when the law ends. */
  open(bounds?: RunStoreBoundsOptions): Promise<RunStore>;
  /** A new store over the storage of the last one `open` gave, as after a restart. */
  reopen(): Promise<RunStore>;
  /** The subject's `peer` or `sibling` for the last store `open` gave; undefined without it. */
  another(kind: "peer" | "sibling"): Promise<RunStore> | undefined;
  /** Runs `body` on a fresh subject with `bounds` (one per property run). */
  fresh<T>(bounds: RunStoreBoundsOptions, body: (holder: RunStoreHolder) => Promise<T>): Promise<T>;
  property: LawContext["property"];
}

export type RunStoreLaw = Law<RunStoreContext>;

async function runLaw(
  law: RunStoreLaw,
  options: RunStoreConformanceOptions,
  probe: RunStoreSubject,
): Promise<CheckOutcome> {
  if (law.needs.includes("reopen") && !probe.reopen) {
    return skip("the subject gives no reopen: the store is volatile");
  }
  const opened: RunStoreSubject[] = [];
  let last: RunStoreHolder | undefined;
  const context: RunStoreContext = {
    options,
    hooks: { reopen: probe.reopen !== undefined },
    open: async (bounds = {}) => {
      const subject = await options.create(bounds);
      opened.push(subject);
      last = { store: subject.store, subject };
      return subject.store;
    },
    reopen: () => {
      if (!last) throw new TypeError("reopen before open");
      return reopenRunStore(last);
    },
    another: (kind) => {
      if (!last) throw new TypeError(`${kind} before open`);
      return last.subject[kind]?.();
    },
    fresh: (bounds, body) => withRunStore(options, bounds, body),
    property: propertyRunner(options),
  };
  try {
    return (await law.body(context)) ?? undefined;
  } finally {
    for (const subject of opened) await subject.cleanup?.();
  }
}

/** Binds a run-store law to the subjects in `options`. */
export function bindRunStoreLaw(
  law: RunStoreLaw,
  options: RunStoreConformanceOptions,
  subjectName: string,
): ConformanceCheck {
  const name = `${law.group}: ${law.name}`;
  return {
    name,
    run: async () => {
      // Every store the law opens is watched: a law that hangs names the call that did.
      const pending = new PendingCalls();
      const watched: RunStoreConformanceOptions = {
        ...options,
        create: async (bounds) =>
          pending.watchSubject(await options.create(bounds), RUN_STORE_SUBJECT_ROLES),
      };
      try {
        return await withinLawLimit(
          options.testTimeoutMs,
          () => withRunStore(watched, {}, (probe) => runLaw(law, watched, probe.subject)),
          pending,
        );
      } catch (error) {
        throw new ConformanceFailure(
          failureReport(name, `describeRunStore(${JSON.stringify(subjectName)}`, error),
        );
      }
    },
  };
}
