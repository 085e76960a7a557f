import { type ArtifactMeta, allVersions, validateName } from "@artifact-kit/core";
import type { Command } from "commander";
import { describeVersion } from "../describe.js";
import { withStore } from "../globals.js";
import { action, emit } from "../output.js";
import { parseCount } from "../parse-count.js";
import { scopeFromOptions } from "../scope-options.js";

interface VersionsOptions {
  limit?: string;
  cursor?: string;
  all?: boolean;
}

export function registerVersions(program: Command): void {
  program
    .command("versions")
    .description("list the live versions of a name, ascending (metadata only, never bytes)")
    .argument("<name>", "artifact name")
    .option("--limit <n>", "versions per page (default and cap: the adapter's maxPageLimit)")
    .option("--cursor <version>", "continue after this version (the previous page's nextCursor)")
    .option("--all", "follow every page")
    .action(
      action<[string], VersionsOptions>(async (options, nameText) => {
        const scope = scopeFromOptions(options);
        const name = validateName(nameText);
        const limit = options.limit === undefined ? undefined : parseCount(options.limit, "limit");
        const cursor =
          options.cursor === undefined ? undefined : parseCount(options.cursor, "cursor");
        await withStore(
          options,
          async (service) => {
            let items: readonly ArtifactMeta[];
            let nextCursor: number | undefined;
            if (options.all) {
              items = await allVersions(service, scope, name);
            } else {
              ({ items, nextCursor } = await service.listVersions(scope, name, {
                ...(limit === undefined ? {} : { limit }),
                ...(cursor === undefined ? {} : { cursor }),
              }));
            }
            const json = {
              scope,
              name,
              items,
              ...(nextCursor === undefined ? {} : { nextCursor }),
            };
            emit(options, json, items.map(describeVersion));
            if (nextCursor !== undefined && !options.json) {
              process.stderr.write(`(more: --cursor ${nextCursor})\n`);
            }
          },
          { readOnly: true },
        );
        return undefined;
      }),
    );
}
