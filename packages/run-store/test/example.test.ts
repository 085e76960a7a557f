import { MemoryArtifactService } from "@artifact-kit/memory";
import { expect, it } from "vitest";
import { ArtifactServiceRunStore, InMemoryRunStore } from "../src/index.js";

// The README's example, as written there.
it("runs the README example", async () => {
  const store = new InMemoryRunStore({ bounds: { maxBytesPerRun: 8 * 1024 * 1024 } });
  await store.register("run-42", "plan", "src/main.ts", "export const answer = 41;");
  await store.register("run-42", "plan", "logo.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
  await store.register("run-42", "fix", "src/main.ts", "export const answer = 42;");
  expect(await store.find("run-42", "src/main.ts")).toBe("export const answer = 42;");
  const listed = (await store.artifacts("run-42")).map(({ path, stepId, size }) => [
    path,
    stepId,
    size,
  ]);
  expect(listed).toEqual([
    ["src/main.ts", "fix", 25],
    ["logo.png", "plan", 4],
  ]);
  await store.remove("run-42", "logo.png");
  await store.clear("run-42");
  expect(await store.artifacts("run-42")).toEqual([]);

  const durable = new ArtifactServiceRunStore(new MemoryArtifactService(), { namespace: "my-app" });
  await durable.register("run-42", "plan", "README.md", "# hello");
  expect(await durable.find("run-42", "README.md")).toBe("# hello");
});
