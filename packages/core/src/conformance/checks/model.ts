import fc from "fast-check";
import { type ConformanceCheck, propertyParameters } from "../check.js";
import { artifactCommands } from "../commands.js";
import { ReferenceModel } from "../model.js";
import { type ArtifactServiceConformanceOptions, withSubject } from "../subject.js";

export function modelChecks(options: ArtifactServiceConformanceOptions): ConformanceCheck[] {
  return [
    {
      name: "model: random put/get/head/delete/list sequences over colliding scopes match the reference model",
      async run() {
        await fc.assert(
          fc.asyncProperty(artifactCommands(options.reopen), (commands) =>
            withSubject(options.create, (holder) =>
              fc.asyncModelRun(() => ({ model: new ReferenceModel(), real: holder }), commands),
            ),
          ),
          propertyParameters(options),
        );
        return undefined;
      },
    },
  ];
}
