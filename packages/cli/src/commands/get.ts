import { resolve } from "node:path";
import type { Command } from "commander";
import { withStore } from "../globals.js";
import { action, emit } from "../output.js";
import { describeTarget, resolveOutputTarget, summaryStream } from "../output-target.js";
import { scopeFromOptions } from "../scope-options.js";
import { parseVersioned } from "../selector.js";
import { getToTarget } from "../transfer.js";

interface GetOptions {
  output: string;
}

export function registerGet(program: Command): void {
  program
    .command("get")
    .description(
      "write one version's bytes to a file or stdout (verified; streamed where the adapter can)",
    )
    .argument("<name[@version]>", "artifact name, optionally @VERSION or @latest")
    .requiredOption(
      "-o, --output <file>",
      "file to write (a regular file is replaced only once fully written); - for standard output",
    )
    .action(
      action<[string], GetOptions>(async (options, target) => {
        const scope = scopeFromOptions(options);
        const { name, selector } = parseVersioned(target);
        const output = await resolveOutputTarget(options.output, resolve(options.output));
        const { meta, streamed } = await withStore(
          options,
          (service) => getToTarget(service, scope, name, selector, output, options),
          { scope, readOnly: true },
        );
        const file = describeTarget(output);
        // Bytes sent to standard output or a device own it: the summary goes to stderr.
        emit(
          options,
          { ...meta, file, streamed },
          [
            `wrote ${meta.name} v${meta.version} (${meta.size} B, sha256 ${meta.sha256.slice(0, 12)}…) to ${file}`,
          ],
          summaryStream(output),
        );
        return undefined;
      }),
    );
}
