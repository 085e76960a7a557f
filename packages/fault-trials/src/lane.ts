import { type ArtifactService, type ArtifactTransfer, isArtifactError } from "@artifact-kit/core";
import { sha256Hex } from "@artifact-kit/core/adapter";
import type { Fault, FaultProxy } from "@artifact-kit/test-proxy";
import { armRandomFault } from "./armed-fault.js";
import type { SeededRandom } from "./random.js";
import type { DeleteRecord, LaneLog, PutRecord } from "./records.js";
import type { ServerRelay } from "./relay.js";

/** What a trial drives: the contract and streaming uploads, and `repair` where there is one. */
export interface TrialService extends ArtifactService, ArtifactTransfer {
  repair?(options?: { olderThanMs?: number }): Promise<unknown>;
}

/** A lane's view of the store: through the fault proxy, and past it. */
export interface LaneServices {
  readonly subject: TrialService;
  readonly observer: TrialService;
}

export interface LaneSetup {
  readonly services: LaneServices;
  readonly proxy: FaultProxy;
  readonly relay: ServerRelay;
  /** The backend's own refusal (its 503), as the proxy gives it. */
  readonly unavailable: Fault;
  /** Size of the occasional large streamed upload (S3: above one part), if any. */
  readonly largeUploadBytes?: number;
}

/** Each operation's own deadline; a delayed request may outlast it (see MAX_DELAY_MS). */
export const OPERATION_TIMEOUT_MS = 2_500;
const NAMES = ["a", "dir/b", "c"] as const;
const OPERATION_WEIGHTS = {
  put: 24,
  upload: 12,
  keyedPut: 14,
  keyedUpload: 6,
  deleteVersion: 12,
  deleteLatest: 8,
  deleteAll: 3,
  repair: 5,
};
type Operation = keyof typeof OPERATION_WEIGHTS;

/**
 * One seeded lane of a trial: `operations` operations one after another on names of its own
 * scope, most with a fault armed on one of their requests. Each waits until the server has
 * settled (a delayed request has landed or never will) before the next begins.
 */
export async function runLane(
  seed: number,
  random: SeededRandom,
  setup: LaneSetup,
  operations: number,
): Promise<LaneLog> {
  const log: LaneLog = {
    seed,
    scope: { kind: "app", app: `trial-${seed}` },
    names: NAMES,
    puts: [],
    deletes: [],
    faults: [],
    operations: 0,
    failures: {},
    foreignErrors: [],
  };
  const lane = new Lane(random, setup, log);
  for (let op = 0; op < operations; op++) await lane.step(op);
  return log;
}

class Lane {
  readonly #random: SeededRandom;
  readonly #setup: LaneSetup;
  readonly #log: LaneLog;

  constructor(random: SeededRandom, setup: LaneSetup, log: LaneLog) {
    this.#random = random;
    this.#setup = setup;
    this.#log = log;
  }

  async step(op: number): Promise<void> {
    const random = this.#random;
    const { proxy, relay, unavailable, services } = this.#setup;
    let operation = random.weighted<Operation>(OPERATION_WEIGHTS);
    if (operation === "repair" && !services.subject.repair) operation = "put";
    const name = random.pick(NAMES);
    // Targets are read before the fault is armed, through the clean client.
    const prepared = await this.#prepare(op, operation, name);
    if (random.chance(0.95))
      this.#log.faults.push(armRandomFault(random, proxy, relay, unavailable));
    this.#log.operations += 1;
    try {
      await prepared();
    } catch (error) {
      const code = isArtifactError(error) ? error.code : "not an ArtifactError";
      this.#log.failures[code] = (this.#log.failures[code] ?? 0) + 1;
      if (!isArtifactError(error)) this.#log.foreignErrors.push(`#${op} ${operation}: ${error}`);
    } finally {
      proxy.clearFaults();
      relay.clearHold();
      await relay.settled();
    }
  }

  /** Reads what the operation needs, and returns the operation itself. */
  async #prepare(op: number, operation: Operation, name: string): Promise<() => Promise<void>> {
    switch (operation) {
      case "put":
        return () => this.#put(op, name, false);
      case "keyedPut":
        return () => this.#put(op, name, true);
      case "upload":
        return () => this.#upload(op, name, false);
      case "keyedUpload":
        return () => this.#upload(op, name, true);
      case "repair":
        return async () => {
          await this.#setup.services.subject.repair?.({ olderThanMs: 1 });
        };
      default:
        return this.#prepareDelete(op, operation, name);
    }
  }

  #payload(op: number, size: number): Uint8Array {
    const label = new TextEncoder().encode(`${this.#log.seed}/${op}/`);
    const data = new Uint8Array(label.byteLength + size);
    data.set(label);
    data.set(this.#random.bytes(Math.min(size, 4096)), label.byteLength);
    return data;
  }

  #record(op: number, name: string, data: Uint8Array, keyed: boolean): PutRecord {
    const record: PutRecord = {
      op,
      name,
      sha256: sha256Hex(data),
      acknowledged: [],
      ...(keyed ? { key: `key-${this.#log.seed}-${op}`, data } : {}),
    };
    this.#log.puts.push(record);
    return record;
  }

  async #put(op: number, name: string, keyed: boolean): Promise<void> {
    const data = this.#payload(op, this.#random.int(0, 3000));
    const record = this.#record(op, name, data, keyed);
    const options = {
      timeoutMs: OPERATION_TIMEOUT_MS,
      ...(record.key ? { idempotencyKey: record.key } : {}),
    };
    const { subject } = this.#setup.services;
    try {
      record.acknowledged.push((await subject.put(this.#log.scope, name, data, options)).version);
    } finally {
      if (record.key && record.acknowledged.length === 0) await this.#retryKeyed(record);
    }
  }

  async #upload(op: number, name: string, keyed: boolean): Promise<void> {
    const { largeUploadBytes } = this.#setup;
    const large = !keyed && largeUploadBytes !== undefined && this.#random.chance(0.1);
    const data = this.#payload(op, large ? largeUploadBytes : this.#random.int(0, 3000));
    const record = this.#record(op, name, data, keyed);
    const options = {
      timeoutMs: OPERATION_TIMEOUT_MS * (large ? 4 : 1),
      ...(record.key ? { idempotencyKey: record.key } : {}),
    };
    const { subject } = this.#setup.services;
    try {
      const upload = await subject.openUpload(this.#log.scope, name, options);
      try {
        const cut = this.#random.int(0, data.byteLength);
        await upload.write(data.subarray(0, cut));
        await upload.write(data.subarray(cut));
        record.acknowledged.push((await upload.finish()).version);
      } catch (error) {
        await upload.abort().catch(() => undefined);
        throw error;
      }
    } finally {
      if (record.key && record.acknowledged.length === 0) await this.#retryKeyed(record);
    }
  }

  /** The caller's retry of a keyed put that failed: the same key and payload, once more. */
  async #retryKeyed(record: PutRecord): Promise<void> {
    const { proxy, relay, services } = this.#setup;
    proxy.clearFaults();
    relay.clearHold();
    await relay.settled();
    const options = { timeoutMs: OPERATION_TIMEOUT_MS, idempotencyKey: record.key as string };
    const data = record.data as Uint8Array;
    try {
      const meta = await services.subject.put(this.#log.scope, record.name, data, options);
      record.acknowledged.push(meta.version);
    } catch (error) {
      // Still unknown (not_found once deleted, or the deadline): the check retries it again.
      if (!isArtifactError(error)) this.#log.foreignErrors.push(`retry of #${record.op}: ${error}`);
    }
  }

  async #prepareDelete(op: number, operation: Operation, name: string) {
    const { observer, subject } = this.#setup.services;
    const scope = this.#log.scope;
    const live = (await observer.listVersions(scope, name)).items.map((meta) => meta.version);
    const highest = live.at(-1) ?? 0;
    let record: DeleteRecord;
    if (operation === "deleteAll") {
      record = { op, name, selector: "all", targets: live, acknowledged: false };
    } else if (operation === "deleteLatest") {
      record = { op, name, selector: "latest", targets: live.slice(-1), acknowledged: false };
    } else {
      const version =
        live.length > 0 && this.#random.chance(0.8)
          ? this.#random.pick(live)
          : this.#random.int(1, highest + 1);
      const targets = live.includes(version) ? [version] : [];
      record = { op, name, selector: version, targets, acknowledged: false };
    }
    this.#log.deletes.push(record);
    return async () => {
      await subject.delete(scope, name, record.selector, { timeoutMs: OPERATION_TIMEOUT_MS });
      record.acknowledged = true;
    };
  }
}
