import { inspect } from "node:util";
import fc from "fast-check";
import { isArtifactError } from "../../errors.js";
import type { RunContent, RunStore } from "../../run-store.js";
import { expectArtifactError, expectTrue } from "../expect.js";
import { seededBytes } from "../payload.js";
import { type ModelFile, type RunStoreModel, sizeOf } from "./model.js";
import { expectContent, expectSnapshot } from "./observe.js";
import { type RunStoreHolder, reopenRunStore } from "./subject.js";

type Command = fc.AsyncCommand<RunStoreModel, RunStoreHolder>;

/** More runs than SMALL_BOUNDS.maxRuns; ids a path join would confuse. */
export const RUN_IDS: readonly string[] = Object.freeze(["run-1", "run-1/a", "é run"]);
export const STEP_IDS: readonly string[] = Object.freeze(["step-1", "step-2"]);
/** More paths than SMALL_BOUNDS.maxArtifactsPerRun, with prefixes and non-ASCII. */
export const PATHS: readonly string[] = Object.freeze(["a", "a/b", "b", "é.txt", "dir/😀"]);

/**
 * Text and bytes of 0 to 10 bytes, spread evenly (explicit sizes, not fast-check's small
 * default), so registers reach SMALL_BOUNDS' per-file, per-run and total bytes, and pass them;
 * and files of 0 to 2 bytes, so a run also fills its file count before its bytes.
 */
export const contentArb: fc.Arbitrary<RunContent> = fc.oneof(
  fc.integer({ min: 0, max: 10 }).map((size) => "abcdefghij".slice(0, size)),
  fc.string({ unit: "binary", minLength: 1, maxLength: 4, size: "max" }),
  fc.integer({ min: 0, max: 10 }).map((size) => seededBytes(size, size + 1)),
  fc.integer({ min: 0, max: 2 }).map((size) => "ab".slice(0, size)),
);

export const copyOf = (content: RunContent): RunContent =>
  typeof content === "string" ? content : content.slice();

const show = (content: RunContent) =>
  typeof content === "string" ? inspect(content) : `bytes[${[...content].join(",")}]`;

/** Registers a copy of `content`, then scribbles on the caller's bytes: the store must not notice. */
export async function registerCopy(
  store: RunStore,
  runId: string,
  stepId: string,
  path: string,
  content: RunContent,
): Promise<void> {
  const sent = copyOf(content);
  try {
    await store.register(runId, stepId, path, sent);
  } finally {
    if (typeof sent !== "string") sent.fill(0xee);
  }
}

class RegisterCommand implements Command {
  constructor(
    readonly runId: string,
    readonly stepId: string,
    readonly path: string,
    readonly content: RunContent,
  ) {}
  check() {
    return true;
  }
  async run(model: RunStoreModel, real: RunStoreHolder) {
    const file: ModelFile = {
      path: this.path,
      stepId: this.stepId,
      content: this.content,
      size: sizeOf(this.content),
    };
    const exceeded = model.exceeded(this.runId, file);
    const action = () => registerCopy(real.store, this.runId, this.stepId, this.path, this.content);
    if (exceeded.length === 0) {
      await action();
      model.register(this.runId, file);
      return;
    }
    model.coverage.refused(this.runId, exceeded);
    const error = await expectArtifactError(action, "quota_exceeded", `${this}`);
    const limit = isArtifactError(error) ? error.detail.limit : undefined;
    expectTrue(
      typeof limit === "string" && exceeded.includes(limit),
      `${this}: detail.limit is ${inspect(limit)}, expected one of ${exceeded.join(", ")}`,
    );
    expectSnapshot(
      await real.store.artifacts(this.runId),
      model.files(this.runId),
      `${this} changed the run`,
    );
  }
  toString() {
    return `register(${inspect(this.runId)}, ${inspect(this.stepId)}, ${inspect(this.path)}, ${show(this.content)})`;
  }
}

class FindCommand implements Command {
  constructor(
    readonly runId: string,
    readonly path: string,
  ) {}
  check() {
    return true;
  }
  async run(model: RunStoreModel, real: RunStoreHolder) {
    const found = await real.store.find(this.runId, this.path);
    const expected = model.find(this.runId, this.path);
    if (expected) expectContent(found, expected.content, `${this}`);
    else expectTrue(found === undefined, `${this}: expected undefined, got ${inspect(found)}`);
  }
  toString() {
    return `find(${inspect(this.runId)}, ${inspect(this.path)})`;
  }
}

class ArtifactsCommand implements Command {
  constructor(readonly runId: string) {}
  check() {
    return true;
  }
  async run(model: RunStoreModel, real: RunStoreHolder) {
    expectSnapshot(await real.store.artifacts(this.runId), model.files(this.runId), `${this}`);
  }
  toString() {
    return `artifacts(${inspect(this.runId)})`;
  }
}

class RemoveCommand implements Command {
  constructor(
    readonly runId: string,
    readonly path: string,
  ) {}
  check() {
    return true;
  }
  async run(model: RunStoreModel, real: RunStoreHolder) {
    await real.store.remove(this.runId, this.path);
    model.remove(this.runId, this.path);
  }
  toString() {
    return `remove(${inspect(this.runId)}, ${inspect(this.path)})`;
  }
}

class ClearCommand implements Command {
  constructor(readonly runId: string) {}
  check() {
    return true;
  }
  async run(model: RunStoreModel, real: RunStoreHolder) {
    await real.store.clear(this.runId);
    model.clear(this.runId);
  }
  toString() {
    return `clear(${inspect(this.runId)})`;
  }
}

class ReopenCommand implements Command {
  check() {
    return true;
  }
  async run(_model: RunStoreModel, real: RunStoreHolder) {
    await reopenRunStore(real);
  }
  toString() {
    return "reopen()";
  }
}

/** Random sequences over a few runs and colliding paths, with upserts on purpose. */
export function runStoreCommands(reopen: boolean, replayPath?: string) {
  // Two commands in three on the first run, so that it fills up; the others contend for maxRuns.
  const runId = fc.oneof(
    { arbitrary: fc.constant(RUN_IDS[0] as string), weight: 1 },
    { arbitrary: fc.constantFrom(...RUN_IDS), weight: 1 },
  );
  const path = fc.constantFrom(...PATHS);
  const register = fc
    .tuple(runId, fc.constantFrom(...STEP_IDS), path, contentArb)
    .map(([r, s, p, c]) => new RegisterCommand(r, s, p, c));
  const commands: fc.Arbitrary<Command>[] = [
    register,
    register,
    register,
    fc.tuple(runId, path).map(([r, p]) => new FindCommand(r, p)),
    runId.map((r) => new ArtifactsCommand(r)),
    fc.tuple(runId, path).map(([r, p]) => new RemoveCommand(r, p)),
    fc.tuple(runId, path).map(([r, p]) => new RemoveCommand(r, p)),
    runId.map((r) => new ClearCommand(r)),
  ];
  if (reopen) commands.push(fc.constant(new ReopenCommand()));
  return fc.commands(commands, {
    maxCommands: 60,
    size: "max",
    ...(replayPath === undefined ? {} : { replayPath }),
  });
}
