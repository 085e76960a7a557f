import type { Command } from "commander";
import { describeMeta } from "../describe.js";
import { withStore } from "../globals.js";
import { action, emit } from "../output.js";
import { scopeFromOptions } from "../scope-options.js";
import { parseVersioned } from "../selector.js";

export function registerInfo(program: Command): void {
  program
    .command("info")
    .description("show one version's metadata (latest unless NAME@VERSION)")
    .argument("<name[@version]>", "artifact name, optionally @VERSION or @latest")
    .action(
      action<[string]>(async (options, target) => {
        const scope = scopeFromOptions(options);
        const { name, selector } = parseVersioned(target);
        const meta = await withStore(
          options,
          (service) => service.head(scope, name, { version: selector }),
          { scope, readOnly: true },
        );
        emit(options, meta, describeMeta(meta));
        return undefined;
      }),
    );
}
