import { allNames } from "@artifact-kit/core";
import type { Command } from "commander";
import { withStore } from "../globals.js";
import { action, emit } from "../output.js";
import { parseCount } from "../parse-count.js";
import { scopeFromOptions } from "../scope-options.js";

interface LsOptions {
  limit?: string;
  cursor?: string;
  all?: boolean;
}

export function registerLs(program: Command): void {
  program
    .command("ls")
    .description("list the names in a scope, one page at a time (UTF-8 byte order)")
    .option("--limit <n>", "names per page (default and cap: the adapter's maxPageLimit)")
    .option("--cursor <name>", "continue after this name (the nextCursor of the previous page)")
    .option("--all", "follow every page")
    .action(
      action<[], LsOptions>(async (options) => {
        const scope = scopeFromOptions(options);
        const limit = options.limit === undefined ? undefined : parseCount(options.limit, "limit");
        await withStore(
          options,
          async (service) => {
            if (options.all) {
              const items = await allNames(service, scope);
              emit(options, { scope, items }, items);
              return;
            }
            const page = await service.listNames(scope, {
              ...(limit === undefined ? {} : { limit }),
              ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
            });
            emit(options, page, page.items);
            if (page.nextCursor !== undefined && !options.json) {
              process.stderr.write(`(more: --cursor ${JSON.stringify(page.nextCursor)})\n`);
            }
          },
          { readOnly: true },
        );
        return undefined;
      }),
    );
}
