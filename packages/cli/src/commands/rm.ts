import type { Command } from "commander";
import { withStore } from "../globals.js";
import { action, emit } from "../output.js";
import { scopeFromOptions } from "../scope-options.js";
import { parseDeleteTarget } from "../selector.js";

export function registerRm(program: Command): void {
  program
    .command("rm")
    .description("delete one version, the latest, or every version of a name")
    .argument("<name@version|latest|all>", "what to delete; the version part is required")
    .action(
      action<[string]>(async (options, target) => {
        const scope = scopeFromOptions(options);
        const { name, selector } = parseDeleteTarget(target);
        await withStore(options, (service) => service.delete(scope, name, selector), { scope });
        emit(options, { scope, name, selector, deleted: true }, [`deleted ${name}@${selector}`]);
        return undefined;
      }),
    );
}
