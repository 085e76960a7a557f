import fc from "fast-check";
import type { ArtifactService, Scope } from "../types.js";
import {
  COLLIDING_NAMES,
  COLLIDING_SCOPES,
  type PutInput,
  putInputArb,
  putOptionsOf,
} from "./arbitraries.js";
import { expectArtifactError, expectEqual, expectTrue } from "./expect.js";
import { byUtf8Bytes, type ModelVersion, type ReferenceModel } from "./model.js";
import { expectArtifact, expectRecord, readAllNames, readAllVersions } from "./observe.js";
import type { ServiceHolder } from "./subject.js";

type Command = fc.AsyncCommand<ReferenceModel, ServiceHolder>;

const scopeLabel = (scope: Scope) => JSON.stringify(Object.values(scope));

/** A version chosen after the model is known: any allocated one (live or deleted) or the next. */
function pickVersion(model: ReferenceModel, scope: Scope, name: string, pick: number): number {
  return (pick % (model.highWater(scope, name) + 1)) + 1;
}

abstract class ScopedCommand implements Command {
  constructor(
    readonly scope: Scope,
    readonly name: string,
  ) {}
  check(): boolean {
    return true;
  }
  abstract run(model: ReferenceModel, real: ServiceHolder): Promise<void>;
  abstract toString(): string;
}

class PutCommand extends ScopedCommand {
  constructor(
    scope: Scope,
    name: string,
    readonly input: PutInput,
  ) {
    super(scope, name);
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const meta = await real.service.put(
      this.scope,
      this.name,
      this.input.data,
      putOptionsOf(this.input),
    );
    const highWater = model.highWater(this.scope, this.name);
    expectTrue(
      Number.isSafeInteger(meta.version) && meta.version > highWater,
      `put allocated version ${meta.version}, not above the high-water ${highWater}`,
    );
    const expected: ModelVersion = {
      version: meta.version,
      data: this.input.data,
      mimeType: this.input.mimeType ?? "application/octet-stream",
      metadata: this.input.metadata ?? {},
    };
    expectRecord(meta, this.scope, this.name, expected, "put reply");
    model.record(this.scope, this.name, expected);
  }
  toString() {
    return `put(${scopeLabel(this.scope)}, ${JSON.stringify(this.name)}, ${this.input.data.byteLength} bytes)`;
  }
}

class ReadCommand extends ScopedCommand {
  constructor(
    scope: Scope,
    name: string,
    readonly pick: number | "latest",
    readonly withData: boolean,
  ) {
    super(scope, name);
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const version =
      this.pick === "latest" ? "latest" : pickVersion(model, this.scope, this.name, this.pick);
    const expected =
      version === "latest"
        ? model.latest(this.scope, this.name)
        : model.find(this.scope, this.name, version);
    const service = real.service;
    const read = () =>
      this.withData
        ? service.get(this.scope, this.name, { version })
        : service.head(this.scope, this.name, { version });
    if (!expected) {
      await expectArtifactError(read, "not_found", `${this} of version ${version}`);
      return;
    }
    if (this.withData) {
      const artifact = await service.get(this.scope, this.name, { version });
      expectArtifact(artifact, this.scope, this.name, expected, `${this}`);
    } else {
      const meta = await service.head(this.scope, this.name, { version });
      expectTrue(!("data" in meta), "head returned data");
      expectRecord(meta, this.scope, this.name, expected, `${this}`);
    }
  }
  toString() {
    const op = this.withData ? "get" : "head";
    return `${op}(${scopeLabel(this.scope)}, ${JSON.stringify(this.name)}, ${this.pick === "latest" ? "latest" : `pick ${this.pick}`})`;
  }
}

class DeleteCommand extends ScopedCommand {
  constructor(
    scope: Scope,
    name: string,
    readonly pick: number | "latest" | "all",
  ) {
    super(scope, name);
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const selector =
      typeof this.pick === "number"
        ? pickVersion(model, this.scope, this.name, this.pick)
        : this.pick;
    const removed = model.delete(this.scope, this.name, selector);
    const remove = () => real.service.delete(this.scope, this.name, selector);
    if (removed === 0)
      await expectArtifactError(remove, "not_found", `delete ${selector} of nothing live`);
    else await remove();
  }
  toString() {
    return `delete(${scopeLabel(this.scope)}, ${JSON.stringify(this.name)}, ${typeof this.pick === "number" ? `pick ${this.pick}` : this.pick})`;
  }
}

class ListNamesCommand implements Command {
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
    if (this.cursor === undefined) {
      expectEqual(await readAllNames(real.service, this.scope, this.limit), all, `${this}`);
      return;
    }
    const cursor = this.cursor;
    const after = all.filter((name) => byUtf8Bytes(name, cursor) > 0);
    const page = await real.service.listNames(this.scope, { limit: this.limit, cursor });
    expectEqual([...page.items], after.slice(0, this.limit), `${this}: the names after the cursor`);
    const more = after.length > this.limit;
    expectEqual(page.nextCursor, more ? page.items.at(-1) : undefined, `${this}: nextCursor`);
  }
  toString() {
    return `listNames(${scopeLabel(this.scope)}, limit ${this.limit}${this.cursor === undefined ? "" : `, after ${JSON.stringify(this.cursor)}`})`;
  }
}

class ListVersionsCommand extends ScopedCommand {
  constructor(
    scope: Scope,
    name: string,
    readonly limit: number,
  ) {
    super(scope, name);
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const expected = model.live(this.scope, this.name);
    const versions = await readAllVersions(real.service, this.scope, this.name, this.limit);
    expectEqual(
      versions.map((v) => v.version),
      expected.map((v) => v.version),
      `${this}: versions`,
    );
    versions.forEach((meta, i) => {
      expectRecord(meta, this.scope, this.name, expected[i] as ModelVersion, `${this}`);
    });
  }
  toString() {
    return `listVersions(${scopeLabel(this.scope)}, ${JSON.stringify(this.name)}, limit ${this.limit})`;
  }
}

class LegacyListCommand implements Command {
  constructor(readonly scope: Scope) {}
  check() {
    return true;
  }
  async run(model: ReferenceModel, real: ServiceHolder) {
    const { legacyListLimit } = real.service.capabilities().pagination;
    if (model.liveCount(this.scope) > legacyListLimit) {
      await expectArtifactError(
        () => real.service.list(this.scope),
        "result_limit_exceeded",
        `${this}`,
      );
      return;
    }
    const records = await real.service.list(this.scope);
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
      expectRecord(record, this.scope, name, v, `${this}`);
    });
  }
  toString() {
    return `list(${scopeLabel(this.scope)})`;
  }
}

class ReopenCommand implements Command {
  constructor(readonly reopen: (old: ArtifactService) => Promise<ArtifactService>) {}
  check() {
    return true;
  }
  async run(_model: ReferenceModel, real: ServiceHolder) {
    await real.service.close();
    real.service = await this.reopen(real.service);
  }
  toString() {
    return "reopen()";
  }
}

/** Random command sequences over colliding scopes and names, with small pages. */
export function artifactCommands(
  reopen: ((old: ArtifactService) => Promise<ArtifactService>) | undefined,
) {
  const scope = fc.constantFrom(...COLLIDING_SCOPES);
  const name = fc.constantFrom(...COLLIDING_NAMES);
  const pick = fc.oneof(fc.constant("latest" as const), fc.nat(20));
  const limit = fc.integer({ min: 1, max: 4 });
  const commands: fc.Arbitrary<Command>[] = [
    fc.tuple(scope, name, putInputArb(48)).map(([s, n, input]) => new PutCommand(s, n, input)),
    fc.tuple(scope, name, putInputArb(48)).map(([s, n, input]) => new PutCommand(s, n, input)),
    fc
      .tuple(scope, name, pick, fc.boolean())
      .map(([s, n, p, data]) => new ReadCommand(s, n, p, data)),
    fc
      .tuple(scope, name, fc.oneof(pick, fc.constant("all" as const)))
      .map(([s, n, p]) => new DeleteCommand(s, n, p)),
    fc
      .tuple(scope, limit, fc.option(name, { nil: undefined }))
      .map(([s, l, cursor]) => new ListNamesCommand(s, l, cursor)),
    fc.tuple(scope, name, limit).map(([s, n, l]) => new ListVersionsCommand(s, n, l)),
    scope.map((s) => new LegacyListCommand(s)),
  ];
  if (reopen) commands.push(fc.constant(new ReopenCommand(reopen)));
  return fc.commands(commands, { maxCommands: 40 });
}
