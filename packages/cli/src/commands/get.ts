import { resolve } from "node:path";
import type { Command } from "commander";
import { withStore } from "../globals.js";
import { action, emit } from "../output.js";
import { scopeFromOptions } from "../scope-options.js";
import { parseVersioned } from "../selector.js";
import { getToFile } from "../transfer.js";

interface GetOptions {
  output: string;
}

export function registerGet(program: Command): void {
  program
    .command("get")
    .description("write one version's bytes to a file (verified; streamed where the adapter can)")
    .argument("<name[@version]>", "artifact name, optionally @VERSION or @latest")
    .requiredOption("-o, --output <file>", "file to write (replaced only once fully written)")
    .action(
      action<[string], GetOptions>(async (options, target) => {
        const scope = scopeFromOptions(options);
        const { name, selector } = parseVersioned(target);
        const file = resolve(options.output);
        const { meta, streamed } = await withStore(options, (service) =>
          getToFile(service, scope, name, selector, file, options),
        );
        emit(options, { ...meta, file, streamed }, [
          `wrote ${meta.name} v${meta.version} (${meta.size} B, sha256 ${meta.sha256.slice(0, 12)}…) to ${file}`,
        ]);
        return undefined;
      }),
    );
}
