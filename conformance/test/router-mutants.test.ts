import type { ShardedArtifactService } from "@artifact-kit/sharded";
import { shardedRouterChecks } from "@artifact-kit/sharded/conformance";
import { afterAll, describe, expect, it } from "vitest";
import { firstFailure } from "../mutants/first-failure.js";
import { importPatchedCopy } from "../mutants/patched/build.js";
import { SHARDED_MUTANTS } from "../mutants/sharded/patches.js";

// The router kit rejects every patched copy of the sharded router (mutants/sharded): the
// checks run in the kit's order and stop at the first failure, reported at the end (the
// "killed by" column of conformance/README.md). The unbroken router passes the same kit in
// packages/sharded/test/router-kit.test.ts.

const killedBy: string[] = [];
afterAll(() => {
  console.info(killedBy.join("\n"));
});

describe("the router kit rejects every sharded mutant", () => {
  for (const spec of SHARDED_MUTANTS) {
    it(`rejects the router where ${spec.bug}`, async () => {
      const module = (await importPatchedCopy(
        "sharded",
        spec,
        "service.ts",
        "conformance/mutants/sharded/patches.ts",
        true,
      )) as { ShardedArtifactService: typeof ShardedArtifactService };
      const Router = module.ShardedArtifactService;
      const failure = await firstFailure(
        shardedRouterChecks({ create: (factory, options) => new Router(factory, options) }),
      );
      expect(failure, `no router law failed for ${spec.slug}`).toBeDefined();
      killedBy.push(`${spec.slug} -> ${failure?.name}`);
    });
  }
});
