import { inspect } from "node:util";
import type fc from "fast-check";
import type { ArtifactService, Scope } from "../types.js";
import { COLLIDING_SCOPES } from "./arbitraries.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "./expect.js";
import { byUtf8Bytes, type ModelVersion, type ReferenceModel } from "./model.js";
import {
  expectArtifact,
  expectEveryViewAgrees,
  expectRecord,
  readAllNames,
  readAllVersions,
  scribble,
} from "./observe.js";
import { reopenHolder, type ServiceHolder } from "./subject.js";

// The commands of the model-based check (puts are in put-commands.ts). Each checks every field
// of every reply against the model, then scribbles on what it was given (the store must not
// notice), and each call gets its own copy of the scope, so a store that keeps the caller's
// objects is caught too.

export type Command = fc.AsyncCommand<ReferenceModel, ServiceHolder>;

const label = (scope: Scope) => JSON.stringify(Object.values(scope));
/** Each call gets its own copy of the scope: a store that keeps it is caught. */
export const copyScope = (scope: Scope): Scope => ({ ...scope });
export const inspectValue = (value: unknown) =>
  inspect(value, { depth: 8, breakLength: Number.POSITIVE_INFINITY });

/** A version chosen once the model is known, so shrinking keeps it meaningful. */
export type VersionPick =
  | { top: number } // the k-th version below the high-water (0: the last allocated)
  | { any: number }; // any allocated version (live or deleted), or the next one

function resolvePick(model: ReferenceModel, scope: Scope, name: string, pick: VersionPick) {
  const highWater = model.highWater(scope, name);
  if ("top" in pick) return Math.max(1, highWater - pick.top);
  return (pick.any % (highWater + 1)) + 1;
}

const showPick = (pick: VersionPick | "latest" | "all") =>
  typeof pick === "string" ? pick : "top" in pick ? `high-water - ${pick.top}` : `pick ${pick.any}`;

/** A command on one (scope, name). */
export abstract class TargetCommand implements Command {
  constructor(
    readonly scope: Scope,
    readonly name: string,
  ) {}
  check(_model: Readonly<ReferenceModel>): boolean {
    return true;
  }
  abstract run(model: ReferenceModel, real: ServiceHolder): Promise<void>;
  abstract toString(): string;
  protected get target() {
    return `${label(this.scope)}, ${JSON.stringify(this.name)}`;
  }
}

export class ReadCommand extends TargetCommand {
  constructor(
    scope: Scope,
    name: string,
    readonly pick: VersionPick | "latest",
    readonly withData: boolean,
  ) {
    super(scope, name);
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const version =
      this.pick === "latest" ? "latest" : resolvePick(model, this.scope, this.name, this.pick);
    const expected =
      version === "latest"
        ? model.latest(this.scope, this.name)
        : model.find(this.scope, this.name, version);
    model.noteRead(this.scope, this.name);
    const { service } = real;
    const what = `${this} (version ${version})`;
    const read = () =>
      this.withData
        ? service.get(copyScope(this.scope), this.name, { version })
        : service.head(copyScope(this.scope), this.name, { version });
    if (!expected) {
      await expectArtifactError(read, "not_found", what);
      return;
    }
    const record = await read();
    if (this.withData) expectArtifact(record as never, this.scope, this.name, expected, what);
    else {
      expectTrue(!("data" in record), `${what}: head returned data`);
      expectRecord(record, this.scope, this.name, expected, what);
    }
    scribble(record);
  }
  toString() {
    return `${this.withData ? "get" : "head"}(${this.target}, ${showPick(this.pick)})`;
  }
}

export class DeleteCommand extends TargetCommand {
  constructor(
    scope: Scope,
    name: string,
    readonly pick: VersionPick | "latest" | "all",
  ) {
    super(scope, name);
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const selector =
      typeof this.pick === "string"
        ? this.pick
        : resolvePick(model, this.scope, this.name, this.pick);
    const removed = model.delete(this.scope, this.name, selector);
    const remove = () => real.service.delete(copyScope(this.scope), this.name, selector);
    const what = `${this} (selector ${selector})`;
    if (removed === 0) await expectArtifactError(remove, "not_found", `${what} of nothing live`);
    else {
      const result = await remove().catch((error: unknown) =>
        fail(`${what}: expected success, got ${inspectValue(error)}`),
      );
      expectEqual(result, undefined, `${what}: the reply`);
    }
  }
  toString() {
    return `delete(${this.target}, ${showPick(this.pick)})`;
  }
}

export class ListNamesCommand implements Command {
  constructor(
    readonly scope: Scope,
    readonly limit: number,
    readonly cursor: string | undefined,
  ) {}
  check() {
    return true;
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const all = model.names(this.scope);
    for (const name of all) model.noteRead(this.scope, name);
    if (this.cursor === undefined) {
      expectEqual(
        await readAllNames(real.service, copyScope(this.scope), this.limit),
        all,
        `${this}`,
      );
      return;
    }
    const cursor = this.cursor;
    const after = all.filter((name) => byUtf8Bytes(name, cursor) > 0);
    const page = await real.service.listNames(copyScope(this.scope), { limit: this.limit, cursor });
    expectEqual([...page.items], after.slice(0, this.limit), `${this}: the names after the cursor`);
    const more = after.length > this.limit;
    expectEqual(page.nextCursor, more ? page.items.at(-1) : undefined, `${this}: nextCursor`);
    scribble(page);
  }
  toString() {
    return `listNames(${label(this.scope)}, limit ${this.limit}${this.cursor === undefined ? "" : `, cursor ${JSON.stringify(this.cursor)}`})`;
  }
}

export class ListVersionsCommand extends TargetCommand {
  constructor(
    scope: Scope,
    name: string,
    readonly limit: number,
    readonly cursor: VersionPick | undefined,
  ) {
    super(scope, name);
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    model.noteRead(this.scope, this.name);
    const live = model.live(this.scope, this.name);
    const cursor =
      this.cursor === undefined
        ? undefined
        : resolvePick(model, this.scope, this.name, this.cursor);
    const after = live.filter((v) => cursor === undefined || v.version > cursor);
    // One page after a cursor; every page (checked on the way) without one.
    const expected = cursor === undefined ? after : after.slice(0, this.limit);
    const what = `${this}${cursor === undefined ? "" : ` (cursor ${cursor})`}`;
    const versions =
      cursor === undefined
        ? await readAllVersions(real.service, copyScope(this.scope), this.name, this.limit)
        : await this.#pageAfter(real.service, cursor, after.length, what);
    expectEqual(
      versions.map((v) => v.version),
      expected.map((v) => v.version),
      `${what}: versions`,
    );
    versions.forEach((meta, i) => {
      expectRecord(meta, this.scope, this.name, expected[i] as ModelVersion, what);
    });
    scribble(versions);
  }
  async #pageAfter(service: ArtifactService, cursor: number, remaining: number, what: string) {
    const page = await service.listVersions(copyScope(this.scope), this.name, {
      limit: this.limit,
      cursor,
    });
    for (const item of page.items) expectTrue(!("data" in item), `${what}: a page carries data`);
    const more = remaining > this.limit;
    expectEqual(
      page.nextCursor,
      more ? page.items.at(-1)?.version : undefined,
      `${what}: nextCursor`,
    );
    return page.items;
  }
  toString() {
    return `listVersions(${this.target}, limit ${this.limit}${this.cursor === undefined ? "" : `, cursor ${showPick(this.cursor)}`})`;
  }
}

export class LegacyListCommand implements Command {
  constructor(readonly scope: Scope) {}
  check() {
    return true;
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const { legacyListLimit } = real.service.capabilities().pagination;
    for (const name of model.names(this.scope)) model.noteRead(this.scope, name);
    if (model.liveCount(this.scope) > legacyListLimit) {
      await expectArtifactError(
        () => real.service.list(copyScope(this.scope)),
        "result_limit_exceeded",
        `${this}`,
      );
      return;
    }
    const records = await real.service.list(copyScope(this.scope));
    const expected = model
      .names(this.scope)
      .flatMap((name) => model.live(this.scope, name).map((v) => ({ name, v })));
    expectEqual(
      records.map((r) => [r.name, r.version]),
      expected.map(({ name, v }) => [name, v.version]),
      `${this}: every live version by name, then version`,
    );
    records.forEach((record, i) => {
      const { name, v } = expected[i] as { name: string; v: ModelVersion };
      expectTrue(!("data" in record), `${this}: a record carries data`);
      expectRecord(record, this.scope, name, v, `${this}`);
    });
    scribble(records);
  }
  toString() {
    return `list(${label(this.scope)})`;
  }
}

export class ReopenCommand implements Command {
  check() {
    return true;
  }
  async run(_model: ReferenceModel, real: ServiceHolder) {
    await reopenHolder(real);
  }
  toString() {
    return "reopen()";
  }
}

/**
 * The subject's maintenance (repair, migration) between commands; every view of the
 * sequence's artifacts, and the names of every scope the sequences use, then say what the
 * model says: maintenance changes nothing published and brings nothing deleted back.
 */
export class MaintainCommand implements Command {
  constructor(readonly targets: readonly { readonly scope: Scope; readonly name: string }[]) {}
  check() {
    return true;
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const { maintain } = real.subject;
    if (!maintain) throw new TypeError("the subject has no maintain hook");
    await maintain();
    for (const { scope, name } of this.targets) {
      await expectEveryViewAgrees(real.service, model, copyScope(scope), name, "after maintain()");
    }
    for (const scope of COLLIDING_SCOPES) {
      const names = await readAllNames(real.service, copyScope(scope));
      expectEqual(names, model.names(scope), `after maintain(): listNames of ${label(scope)}`);
    }
  }
  toString() {
    return "maintain()";
  }
}
