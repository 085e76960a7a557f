import { randomUUID } from "node:crypto";
import { link, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  capacityReached,
  corruptArtifact,
  type Scope,
  scopeDigest,
  sha256Hex,
  validateName,
  validateScope,
} from "@artifact-kit/core";
import { sameScope } from "@artifact-kit/core/adapter";
import type { FsConfig } from "./config.js";
import { createDurably, isTaken, pathExists, removeQuietly, syncDirectory } from "./io.js";
import {
  type NamePaths,
  namePaths,
  type RootPaths,
  type ScopePaths,
  scopePaths,
} from "./layout.js";
import type { NameOrder } from "./name-order.js";
import { FORMAT, parseFormatRecord, readSmallFile, scanStoreDirectory } from "./records.js";

/** Largest slot file read (the largest valid one is under 7 KiB). */
const MAX_SLOT_FILE_BYTES = 16_384;

interface SlotSpec {
  readonly kind: "scope" | "name";
  readonly digest: string;
  readonly content: string;
  readonly slot: string;
  /** Directories to create before the slot is linked, outermost first. */
  readonly dirs: readonly string[];
  readonly claims: string;
  readonly maxClaims: number;
  readonly staging: string;
  /** Checks an existing slot; throws corrupt_artifact if it names something else. */
  readonly verify: () => Promise<boolean>;
  /** Runs with the fsynced staging file just before the slot is linked. */
  readonly beforeLink?: (staged: string) => Promise<void>;
  /** Runs after this creator linked the slot. */
  readonly afterLink?: () => Promise<void>;
}

/** The bound of each lifetime ceiling, as capabilities() names it. */
const CEILING_BOUND = { scope: "maxScopes", name: "maxNamesPerScope" } as const;

/**
 * Scope and name slots: the files that record the real scope or name behind a digest
 * directory, each created once under a capacity claim that keeps the lifetime ceilings exact
 * across processes. Successful creations and verifications are remembered per instance.
 */
export class Slots {
  readonly #config: FsConfig;
  readonly #dirs: RootPaths;
  /** Scopes whose slot this instance has created or verified. */
  readonly #scopes = new Map<string, Promise<ScopePaths>>();
  /** Names (key `scopeDigest/nameDigest`) whose slot this instance has created or verified. */
  readonly #names = new Map<string, Promise<NamePaths>>();
  /** Per claims directory, the number above the last claim this instance took. */
  readonly #nextClaims = new Map<string, number>();

  readonly #order: NameOrder;

  constructor(config: FsConfig, dirs: RootPaths, order: NameOrder) {
    this.#config = config;
    this.#dirs = dirs;
    this.#order = order;
  }

  /** Creates the root's fixed directories (once per store; harmless when they exist). */
  async layOut(): Promise<void> {
    const mode = this.#config.dirMode;
    for (const dir of [this.#dirs.staging, this.#dirs.scopeClaims, this.#dirs.scopes]) {
      await mkdir(dir, { mode, recursive: true });
    }
    await syncDirectory(this.#dirs.root, this.#config);
  }

  ensureScope(scope: Scope): Promise<ScopePaths> {
    const digest = scopeDigest(scope);
    return memo(this.#scopes, digest, async () => {
      const dirs = scopePaths(this.#dirs, digest);
      await this.#ensureSlot({
        kind: "scope",
        digest,
        content: JSON.stringify({ format: FORMAT, scope }),
        slot: dirs.slot,
        dirs: [dirs.dir, dirs.staging, dirs.nameClaims, dirs.names, dirs.nameLog, dirs.nameIndex],
        claims: this.#dirs.scopeClaims,
        maxClaims: this.#config.maxScopes,
        staging: this.#dirs.staging,
        verify: () => this.#verifyScopeSlot(dirs.slot, scope),
      });
      return dirs;
    });
  }

  ensureName(scopeDirs: ScopePaths, name: string): Promise<NamePaths> {
    const dirs = namePaths(scopeDirs, name);
    return memo(this.#names, `${scopeDirs.digest}/${dirs.digest}`, async () => {
      await this.#ensureSlot({
        kind: "name",
        digest: dirs.digest,
        content: JSON.stringify({ format: FORMAT, name }),
        slot: dirs.slot,
        dirs: [dirs.dir],
        claims: scopeDirs.nameClaims,
        maxClaims: this.#config.maxNamesPerScope,
        staging: scopeDirs.staging,
        verify: async () => (await readNameSlot(dirs.slot, dirs.digest)) !== undefined,
        // The name order's log entry is durable before the slot exists (name-order.ts).
        beforeLink: (staged) => this.#order.record(scopeDirs, dirs.digest, name, staged),
        afterLink: () => this.#order.afterCreate(scopeDirs),
      });
      return dirs;
    });
  }

  /** Forgets every remembered slot (on close). */
  clear(): void {
    this.#scopes.clear();
    this.#names.clear();
    this.#nextClaims.clear();
  }

  /**
   * Makes sure a slot exists. Creating one takes a capacity claim first (so the ceiling holds
   * exactly across processes), creates the directories, then links a complete, fsynced
   * temporary file to the slot name: link() is exclusive and atomic, so the slot appears
   * whole or not at all, and only one creator wins. A loser gives its claim back.
   */
  async #ensureSlot(spec: SlotSpec): Promise<void> {
    if (await spec.verify()) return;
    const claim = await this.#claim(spec);
    let linked = false;
    try {
      for (const dir of spec.dirs) {
        await mkdir(dir, { mode: this.#config.dirMode, recursive: true });
      }
      await syncDirectory(spec.dirs[0] as string, this.#config);
      // The new directory's own entry is made durable before the slot that vouches for it:
      // a power cut may keep the link below and lose an unsynced mkdir (power-loss trials).
      await syncDirectory(dirname(spec.dirs[0] as string), this.#config);
      const temp = join(spec.staging, `${randomUUID()}.slot`);
      await createDurably(temp, spec.content, this.#config);
      try {
        await spec.beforeLink?.(temp);
        await link(temp, spec.slot);
        linked = true;
      } catch (error) {
        if (!isTaken(error)) throw error;
      } finally {
        await removeQuietly(temp);
      }
      // One fsync of the parent makes both the new directory and the slot durable.
      if (linked) await syncDirectory(dirname(spec.slot), this.#config);
    } finally {
      // Best effort: a claim that cannot be given back only lowers the ceiling.
      if (!linked) {
        await removeQuietly(claim);
        await syncDirectory(spec.claims, this.#config).catch(() => {});
      }
    }
    if (linked) await spec.afterLink?.();
    if (!linked && !(await spec.verify())) {
      throw corruptArtifact(`the ${spec.kind} slot vanished while it was being created`, {
        kind: spec.kind,
      });
    }
  }

  /**
   * Takes a free claim number in 1..maxClaims, or fails with capacity_reached. Claims are
   * taken upwards from the top of the ones taken so far, found by a few existence probes
   * instead of a read of the whole claims directory; only when the top is full are numbers
   * given back below it looked for, by reading the directory, so the ceiling stays exact.
   */
  async #claim(spec: SlotSpec): Promise<string> {
    const claimPath = (number: number) => join(spec.claims, String(number));
    let number = await this.#frontier(spec, this.#nextClaims.get(spec.claims) ?? 1);
    for (; number <= spec.maxClaims; number++) {
      if (await this.#tryClaim(spec, claimPath(number))) {
        this.#nextClaims.set(spec.claims, number + 1);
        return claimPath(number);
      }
    }
    return this.#claimLowestFree(spec);
  }

  /**
   * The first free number above the taken claims at or after `from`: doubling steps while
   * numbers are taken, then bisection between the last taken and the first free one.
   */
  async #frontier(spec: SlotSpec, from: number): Promise<number> {
    const limit = spec.maxClaims + 1;
    const taken = (number: number) =>
      number < limit ? pathExists(join(spec.claims, String(number))) : Promise.resolve(false);
    if (!(await taken(from))) return from;
    let low = from;
    let high = Math.min(limit, from + 1);
    for (let step = 1; await taken(high); step *= 2) {
      low = high;
      high = Math.min(limit, high + step);
    }
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (await taken(middle)) low = middle;
      else high = middle;
    }
    return high;
  }

  /** Takes the lowest free claim number in 1..maxClaims, or fails with capacity_reached. */
  async #claimLowestFree(spec: SlotSpec): Promise<string> {
    for (;;) {
      const bound = Math.max(this.#config.maxScanEntries, spec.maxClaims);
      const taken = new Set(await scanStoreDirectory(spec.claims, bound));
      let number = 1;
      while (taken.has(String(number))) number += 1;
      if (number > spec.maxClaims) {
        throw capacityReached(spec.kind, CEILING_BOUND[spec.kind], spec.maxClaims);
      }
      const claim = join(spec.claims, String(number));
      if (await this.#tryClaim(spec, claim)) return claim;
    }
  }

  /** Creates one claim exclusively; false when another creator has it. */
  async #tryClaim(spec: SlotSpec, claim: string): Promise<boolean> {
    try {
      await createDurably(claim, spec.digest, this.#config);
      await syncDirectory(spec.claims, this.#config);
      return true;
    } catch (error) {
      if (!isTaken(error)) throw error;
      return false;
    }
  }

  /** True if the scope slot exists and names `scope`; throws corrupt_artifact otherwise. */
  async #verifyScopeSlot(path: string, scope: Scope): Promise<boolean> {
    const slot = await readSlot(path, "scope");
    if (slot === undefined) return false;
    try {
      if (sameScope(validateScope(slot.scope), scope)) return true;
    } catch (error) {
      throw corruptArtifact("the scope slot holds no valid scope", { kind: "scope" }, error);
    }
    throw corruptArtifact("the scope slot names another scope", { kind: "scope" });
  }
}

/** The name a name slot holds, checked against its digest; undefined if absent. */
export async function readNameSlot(path: string, digest: string): Promise<string | undefined> {
  const slot = await readSlot(path, "name");
  if (slot === undefined) return undefined;
  let name: string;
  try {
    name = validateName(slot.name);
  } catch (error) {
    throw corruptArtifact("the name slot holds no valid name", { kind: "name" }, error);
  }
  if (sha256Hex(name) !== digest) {
    throw corruptArtifact("the name slot names another name", { kind: "name" });
  }
  return name;
}

async function readSlot(
  path: string,
  kind: "scope" | "name",
): Promise<Record<string, unknown> | undefined> {
  const what = `the ${kind} slot`;
  const bytes = await readSmallFile(path, MAX_SLOT_FILE_BYTES, what, { kind });
  return bytes === undefined ? undefined : parseFormatRecord(bytes, what, { kind });
}

/** Caches a successful async result per key; a failure is retried by the next call. */
function memo<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let pending = cache.get(key);
  if (!pending) {
    pending = make();
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  return pending;
}
