import { invalidArgument, type JsonObject, validateName } from "@artifact-kit/core";
import type { Command } from "commander";
import { withStore } from "../globals.js";
import { action, emit } from "../output.js";
import { scopeFromOptions } from "../scope-options.js";
import { putFile } from "../transfer.js";

interface PutOptions {
  mime?: string;
  meta: string[];
}

/** `--meta k=v`, repeatable; values are strings, and a key given twice is an error. */
function parseMetadata(pairs: readonly string[]): JsonObject | undefined {
  if (pairs.length === 0) return undefined;
  const metadata: JsonObject = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw invalidArgument("meta", `"${pair}" is not KEY=VALUE`);
    const key = pair.slice(0, eq);
    if (Object.hasOwn(metadata, key)) throw invalidArgument("meta", `"${key}" is given twice`);
    metadata[key] = pair.slice(eq + 1);
  }
  return metadata;
}

export function registerPut(program: Command): void {
  program
    .command("put")
    .description("store a file as the next version of NAME (streamed where the adapter can)")
    .argument("<name>", "artifact name")
    .argument("<file>", "file to read")
    .option("--mime <type>", "MIME type (default application/octet-stream)")
    .option(
      "--meta <key=value>",
      "user metadata entry (repeatable)",
      (pair: string, previous: string[]) => [...previous, pair],
      [],
    )
    .action(
      action<[string, string], PutOptions>(async (options, nameText, file) => {
        const scope = scopeFromOptions(options);
        const name = validateName(nameText);
        const metadata = parseMetadata(options.meta);
        const { meta, streamed } = await withStore(
          options,
          (service) =>
            putFile(service, scope, name, file, {
              json: options.json,
              ...(options.mime === undefined ? {} : { mimeType: options.mime }),
              ...(metadata === undefined ? {} : { metadata }),
            }),
          { create: true },
        );
        emit(options, { ...meta, streamed }, [
          `put ${meta.name} v${meta.version} (${meta.size} B, sha256 ${meta.sha256.slice(0, 12)}…)`,
        ]);
        return undefined;
      }),
    );
}
