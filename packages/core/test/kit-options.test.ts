import { describe, expect, it } from "vitest";
import { ARTIFACT_SERVICE_LAWS, artifactServiceChecks } from "../src/conformance/index.js";

// Which checks a kit run registers: `only` keeps those whose name contains its text, `omit`
// drops those whose name contains one of its texts. Registering runs nothing.
const create = () => Promise.reject(new Error("not run"));
const names = (options: { only?: string; omit?: readonly string[] }) =>
  artifactServiceChecks({ create, ...options }).map((check) => check.name);

describe("the kit's registration options", () => {
  it("registers every law by default, each once", () => {
    const all = names({});
    expect(all).toHaveLength(ARTIFACT_SERVICE_LAWS.length);
    expect(new Set(all).size).toBe(all.length);
  });

  it("omit leaves out exactly the checks whose name contains one of its texts", () => {
    const all = names({});
    const kept = names({ omit: ["scale: ", "maintenance: "] });
    const dropped = all.filter(
      (name) => name.startsWith("scale: ") || name.startsWith("maintenance: "),
    );
    expect(dropped.length).toBeGreaterThanOrEqual(4);
    expect(kept).toEqual(all.filter((name) => !dropped.includes(name)));
  });

  it("only and omit combine", () => {
    expect(names({ only: "scale: ", omit: ["names"] })).toEqual(
      names({ only: "scale: " }).filter((name) => !name.includes("names")),
    );
    expect(names({ only: "scale: ", omit: ["names"] }).length).toBeGreaterThanOrEqual(1);
  });
});

describe("the kit's per-law limit (testTimeoutMs)", () => {
  it("fails a law that never settles, naming the law, instead of waiting for ever", async () => {
    const [first] = artifactServiceChecks({
      create: () => new Promise<never>(() => {}),
      testTimeoutMs: 50,
    });
    const outcome = await first?.run().then(
      () => "settled",
      (error: unknown) => String(error),
    );
    expect(outcome).toContain(first?.name);
    expect(outcome).toContain("did not settle within 50 ms");
  });
});
