import { join } from "node:path";
import {
  corruptArtifact,
  type NamePage,
  type Scope,
  type ScopePage,
  scopeDigest,
  validateScope,
} from "@artifact-kit/core";
import {
  type ParsedListNames,
  type ParsedListScopes,
  pageScopesWithNames,
} from "@artifact-kit/core/adapter";
import { type RootPaths, SLOT_PATTERN } from "./layout.js";
import { parseFormatRecord, readSmallFile, scanStoreDirectory } from "./records.js";

// Scope discovery for the fs adapter: every scope ever written has a slot `scopes/<sd>.json`
// holding the real scope (slots are never removed, so an emptied scope still has one); a
// scope is live when its name listing has a first name. Only this root is read.

/** Largest scope slot read (a valid one is under 1 KiB: three 256-byte ids in JSON). */
const MAX_SCOPE_SLOT_BYTES = 16_384;

/** The scope behind each slot digest this instance has read: slots never change once linked. */
export class ScopeSlotReader {
  readonly #dirs: RootPaths;
  readonly #maxScanEntries: number;
  readonly #known = new Map<string, Scope>();

  constructor(dirs: RootPaths, maxScanEntries: number) {
    this.#dirs = dirs;
    this.#maxScanEntries = maxScanEntries;
  }

  /** Every scope with a slot under this root, emptied ones included. */
  async all(): Promise<Scope[]> {
    const entries = await scanStoreDirectory(this.#dirs.scopes, this.#maxScanEntries);
    const scopes: Scope[] = [];
    for (const entry of entries) {
      const digest = SLOT_PATTERN.exec(entry)?.[1];
      if (digest === undefined) continue;
      const scope = this.#known.get(digest) ?? (await this.#read(digest));
      if (scope !== undefined) scopes.push(scope);
    }
    return scopes;
  }

  async #read(digest: string): Promise<Scope | undefined> {
    const detail = { kind: "scope" };
    const what = "the scope slot";
    const bytes = await readSmallFile(
      join(this.#dirs.scopes, `${digest}.json`),
      MAX_SCOPE_SLOT_BYTES,
      what,
      detail,
    );
    if (bytes === undefined) return undefined;
    let scope: Scope;
    try {
      scope = validateScope(parseFormatRecord(bytes, what, detail).scope);
    } catch (error) {
      throw corruptArtifact("the scope slot holds no valid scope", detail, error);
    }
    if (scopeDigest(scope) !== digest)
      throw corruptArtifact("the scope slot names another scope", detail);
    this.#known.set(digest, scope);
    return scope;
  }
}

/** One page of the level's live scopes: those of the slots whose scope lists a first name. */
export async function liveScopePage(
  slots: ScopeSlotReader,
  request: ParsedListScopes,
  names: (request: ParsedListNames) => Promise<NamePage>,
): Promise<ScopePage> {
  return pageScopesWithNames(await slots.all(), request, names);
}
