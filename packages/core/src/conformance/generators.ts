import fc from "fast-check";
import type { Scope } from "../types.js";
import { COLLIDING_NAMES, COLLIDING_SCOPES, putInputArb } from "./arbitraries.js";
import {
  type Command,
  DeleteCommand,
  LegacyListCommand,
  ListNamesCommand,
  ListVersionsCommand,
  MaintainCommand,
  ReadCommand,
  ReopenCommand,
  type VersionPick,
} from "./commands.js";
import { PutCommand, type RetryChange, RetryCommand } from "./put-commands.js";

// Command sequences that find multi-step bugs: 0 to 60 commands (fast-check's size "max"),
// most of them on one to three artifacts chosen per sequence (which collide on purpose:
// the same name in another scope, "a" beside "a/b"), a few anywhere else. A third of the
// puts carry one of two idempotency keys, and retries repeat (or change) a keyed put.

/** Longest sequence; fast-check spreads lengths up to it (see the kit's coverage test). */
export const MAX_COMMANDS = 60;

interface Target {
  scope: Scope;
  name: string;
}

const TARGETS: readonly Target[] = COLLIDING_SCOPES.flatMap((scope) =>
  COLLIDING_NAMES.map((name) => ({ scope, name })),
);

const anyTarget = fc.constantFrom(...TARGETS);

/**
 * One to three artifacts a sequence concentrates on. The second and third are chosen to
 * collide with the first: its name in another scope, or another name in its scope.
 */
const focusArb: fc.Arbitrary<Target[]> = fc
  .tuple(
    anyTarget,
    fc.array(
      fc.oneof(
        fc.constantFrom(...COLLIDING_SCOPES).map((scope) => ({ scope })),
        fc.constantFrom(...COLLIDING_NAMES).map((name) => ({ name })),
        anyTarget,
      ),
      { maxLength: 2 },
    ),
  )
  .map(([first, others]) => [first, ...others.map((other) => ({ ...first, ...other }))]);

const versionPickArb: fc.Arbitrary<VersionPick> = fc.oneof(
  { arbitrary: fc.nat(2).map((top) => ({ top })), weight: 3 },
  { arbitrary: fc.nat(20).map((any) => ({ any })), weight: 1 },
);

const limitArb = fc.integer({ min: 1, max: 4 });

/** Few keys, so that puts and retries meet on them; one is not ASCII. */
export const IDEMPOTENCY_KEYS: readonly string[] = Object.freeze(["k1", "ключ 🔑"]);

const keyArb = fc.constantFrom(...IDEMPOTENCY_KEYS);

/** A third of the puts carry a key (shrinking drops it first). */
const putKeyArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  { arbitrary: keyArb, weight: 1 },
);

/** Two retries in five repeat the payload; the others change it in one way. */
const retryChangeArb = fc.constantFrom<RetryChange>(
  "none",
  "none",
  "bytes",
  "mimeType",
  "metadata",
);

/** What the subject can do besides calls: restart (`reopen`), run its maintenance (`maintain`). */
export interface SequenceHooks {
  readonly reopen: boolean;
  readonly maintain?: boolean;
}

function commandArbs(focus: readonly Target[], hooks: SequenceHooks): fc.Arbitrary<Command>[] {
  const target = fc.oneof(
    { arbitrary: fc.constantFrom(...focus), weight: 6 },
    { arbitrary: anyTarget, weight: 1 },
  );
  const scope = target.map((t) => t.scope);
  const put = fc
    .tuple(target, putInputArb(), putKeyArb)
    .map(([t, input, key]) => new PutCommand(t.scope, t.name, input, key));
  const retry = fc
    .tuple(target, keyArb, retryChangeArb)
    .map(([t, key, change]) => new RetryCommand(t.scope, t.name, key, change));
  const read = fc
    .tuple(target, fc.oneof(fc.constant("latest" as const), versionPickArb), fc.boolean())
    .map(([t, pick, data]) => new ReadCommand(t.scope, t.name, pick, data));
  const remove = fc
    .tuple(
      target,
      fc.oneof(
        { arbitrary: versionPickArb, weight: 3 },
        { arbitrary: fc.constant("latest" as const), weight: 2 },
        { arbitrary: fc.constant("all" as const), weight: 1 },
      ),
    )
    .map(([t, pick]) => new DeleteCommand(t.scope, t.name, pick));
  // A name cursor from the pool: live, deleted, or never there.
  const names = fc
    .tuple(scope, limitArb, fc.option(fc.constantFrom(...COLLIDING_NAMES), { nil: undefined }))
    .map(([s, limit, cursor]) => new ListNamesCommand(s, limit, cursor));
  const versions = fc
    .tuple(target, limitArb, fc.option(versionPickArb, { nil: undefined }))
    .map(([t, limit, cursor]) => new ListVersionsCommand(t.scope, t.name, limit, cursor));
  const weighted: [fc.Arbitrary<Command>, number][] = [
    [put, 5],
    [retry, 3],
    [read, 4],
    [remove, 3],
    [versions, 2],
    [names, 1],
    [scope.map((s) => new LegacyListCommand(s)), 1],
  ];
  if (hooks.reopen) weighted.push([fc.constant(new ReopenCommand()), 1]);
  if (hooks.maintain) weighted.push([fc.constant(new MaintainCommand(focus)), 2]);
  return weighted.flatMap(([arbitrary, weight]) => Array.from({ length: weight }, () => arbitrary));
}

/**
 * Random command sequences concentrated on a few colliding artifacts.
 *
 * The focus does not shrink. fc.commands' replayPath is the log of ONE commands arbitrary:
 * which of its commands had run at each shrink step. Inside `chain`, every shrink of the
 * focus builds a new fc.commands (with new commands), so a counterexample reached through a
 * shrunk focus printed only the last arbitrary's log, while a replay handed that log to the
 * first one: "Too short replayPath", or the wrong commands kept. With a fixed focus one
 * arbitrary serves the whole shrink, and the targets still shrink, towards the first focus.
 */
export function artifactCommands(
  hooks: SequenceHooks,
  replayPath?: string,
): fc.Arbitrary<Iterable<Command>> {
  return fc.noShrink(focusArb).chain((focus) =>
    fc.commands(commandArbs(focus, hooks), {
      maxCommands: MAX_COMMANDS,
      size: "max",
      ...(replayPath === undefined ? {} : { replayPath }),
    }),
  );
}
