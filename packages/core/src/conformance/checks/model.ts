import fc from "fast-check";
import { check, type LawContext } from "../check.js";
import { artifactCommands } from "../generators.js";
import { ReferenceModel } from "../model.js";

/**
 * Random sequences of 0 to 60 commands, mostly on one to three colliding artifacts, match the
 * reference model in every field of every reply; with `reopen`, restarts happen mid-sequence.
 */
async function sequencesMatchTheModel({ hooks, fresh, property, options }: LawContext) {
  await property([artifactCommands({ reopen: hooks.reopen }, options.replayPath)], (commands) =>
    fresh((holder) =>
      fc.asyncModelRun(() => ({ model: new ReferenceModel(), real: holder }), commands),
    ),
  );
}

export const modelLaws = [
  check(
    "model",
    "random put/get/head/delete/list sequences on a few colliding artifacts match the reference model in every field",
    sequencesMatchTheModel,
  ),
];
