import { invalidArgument } from "@artifact-kit/core";
import type { Command } from "commander";
import { withStore } from "../globals.js";
import { confirmationToken, deleteInventory, describeCounts, takeInventory } from "../inventory.js";
import { action, emit } from "../output.js";
import { describeScope, scopeFromOptions } from "../scope-options.js";

interface RmScopeOptions {
  confirm?: string;
}

export function registerRmScope(program: Command): void {
  program
    .command("rm-scope")
    .description(
      "delete every artifact of one exact scope: a first run is a dry run that prints a confirmation token",
    )
    .option("--confirm <token>", "the token the dry run printed")
    .action(
      action<[], RmScopeOptions>(async (options) => {
        const scope = scopeFromOptions(options);
        await withStore(options, async (service) => {
          const inventory = await takeInventory(service, scope);
          const token = confirmationToken(inventory);
          const counts = {
            names: inventory.names,
            versions: inventory.versions,
            bytes: inventory.bytes,
          };
          const what = `${describeCounts(inventory)} in ${describeScope(scope)}`;
          if (options.confirm === undefined) {
            emit(options, { scope, dryRun: true, ...counts, confirm: token }, [
              `would delete ${what}`,
              `to delete, run again with --confirm ${token}`,
            ]);
            return;
          }
          if (options.confirm !== token) {
            throw invalidArgument(
              "confirm",
              "does not match this scope as it is now: run rm-scope without --confirm again",
            );
          }
          await deleteInventory(service, inventory);
          emit(options, { scope, dryRun: false, ...counts }, [`deleted ${what}`]);
        });
        return undefined;
      }),
    );
}
