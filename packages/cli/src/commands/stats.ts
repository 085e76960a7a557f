import type { Command } from "commander";
import { withStore } from "../globals.js";
import { describeCounts, plural, takeInventory } from "../inventory.js";
import { action, emit } from "../output.js";
import { describeScope, scopeFromOptions } from "../scope-options.js";

export function registerStats(program: Command): void {
  program
    .command("stats")
    .description("count the live names, versions and bytes of one exact scope, per name and in all")
    .action(
      action(async (options) => {
        const scope = scopeFromOptions(options);
        const inventory = await withStore(options, (service) => takeInventory(service, scope), {
          readOnly: true,
        });
        emit(options, inventory, [
          `${describeScope(scope)}: ${describeCounts(inventory)}`,
          ...inventory.byName.map(
            (entry) =>
              `  ${entry.name}  ${plural(entry.versions, "version")}, ${entry.bytes} B, latest v${entry.latestVersion}`,
          ),
        ]);
        return undefined;
      }),
    );
}
