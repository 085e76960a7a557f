import type { RunContent, RunStore } from "@artifact-kit/core";
import { InMemoryRunStore } from "@artifact-kit/run-store";
import type { Workload } from "./measure.js";
import { compare, type Row, type Suite } from "./suite.js";
import { KiB } from "./workloads.js";

/** The two operations measured, as both sides offer them. */
interface RunFiles {
  register(runId: string, stepId: string, path: string, content: RunContent): Promise<void>;
  find(runId: string, path: string): Promise<RunContent | undefined>;
  clear(runId: string): Promise<void>;
}

/**
 * The floor: a plain nested Map (run -> path -> entry), with no bounds and no snapshots, and
 * of the validation only what any correct store must do to text: refuse a lone UTF-16
 * surrogate, which has no UTF-8 form to store (one `isWellFormed` walk, what hand-written
 * code would use). Text content needs no copy on either side, so the store pays for nothing
 * else.
 */
class NestedMapFloor implements RunFiles {
  readonly #runs = new Map<string, Map<string, { stepId: string; content: RunContent }>>();

  async register(runId: string, stepId: string, path: string, content: RunContent) {
    if (typeof content === "string" && !content.isWellFormed()) throw new Error("lone surrogate");
    let files = this.#runs.get(runId);
    if (!files) {
      files = new Map();
      this.#runs.set(runId, files);
    }
    files.set(path, { stepId, content });
  }
  async find(runId: string, path: string) {
    return this.#runs.get(runId)?.get(path)?.content;
  }
  async clear(runId: string) {
    this.#runs.delete(runId);
  }
}

const RUN = "run-1";
/** Paths per run: below the store's default maxArtifactsPerRun (1,000). */
const PATHS = Array.from({ length: 512 }, (_, i) => `src/module-${i}/index.ts`);
/**
 * 1 KiB of text as an agent's file arrives: decoded from a model's reply, so one flat string.
 * A string built by `+` or `repeat` is a rope in V8, which Node's UTF-8 count walks slowly;
 * the last row measures that shape.
 */
const TEXT = new TextDecoder().decode(new Uint8Array(KiB).fill(0x78));
const ROPE_TEXT = "x".repeat(KiB);
/** 1 KiB of UTF-8 in two-byte characters (512 of "é"), and in astral ones (256 of "😀"). */
const TWO_BYTE_TEXT = new TextDecoder().decode(Buffer.from("é".repeat(KiB / 2)));
const ASTRAL_TEXT = new TextDecoder().decode(Buffer.from("😀".repeat(KiB / 4)));

/** Registers new paths one after another; the run is cleared (untimed) once every path is used. */
function registerNewWorkload(files: RunFiles, text = TEXT): Workload {
  let next = 0;
  return {
    prepare: async () => {
      next = 0;
      await files.clear(RUN);
    },
    run: () => files.register(RUN, "step", PATHS[next++ % PATHS.length] as string, text),
    afterSample: async () => {
      if (next >= PATHS.length) {
        next = 0;
        await files.clear(RUN);
      }
    },
  };
}

/** Replaces files of a full run: the last-write-wins path. */
function upsertWorkload(files: RunFiles): Workload {
  let next = 0;
  return {
    prepare: () => fillRun(files),
    run: () => files.register(RUN, "step-2", PATHS[next++ % PATHS.length] as string, TEXT),
  };
}

function findWorkload(files: RunFiles): Workload {
  let next = 0;
  return {
    prepare: () => fillRun(files),
    run: () => files.find(RUN, PATHS[next++ % PATHS.length] as string),
  };
}

async function fillRun(files: RunFiles) {
  await files.clear(RUN);
  for (const path of PATHS) await files.register(RUN, "step", path, TEXT);
}

/** Issue 7: InMemoryRunStore register and find against a plain nested Map floor; target 0.5x. */
export function runStoreSuite(): Suite {
  const sides: Record<string, RunFiles> = {
    ours: new InMemoryRunStore() satisfies RunStore,
    floor: new NestedMapFloor(),
  };
  const row = (label: string, build: (files: RunFiles) => Workload): Row => ({
    label,
    batch: 256,
    workloads: Object.fromEntries(Object.entries(sides).map(([id, files]) => [id, build(files)])),
    target: { comparison: "vsFloor", bound: 0.5, holds: "atLeast" },
  });
  return {
    title: "run-store",
    columns: [
      { id: "ours", label: "ours (InMemoryRunStore)" },
      { id: "floor", label: "floor (nested Map)" },
    ],
    comparisons: [compare("vsFloor", "ours/floor ops/s", "ours", "floor", "throughput")],
    rows: [
      row("register 1 KiB text, new path", registerNewWorkload),
      row("register 1 KiB text, upsert", upsertWorkload),
      row("find 1 KiB text", findWorkload),
      row("register 1 KiB text built by repeat (a rope), new path", (files) =>
        registerNewWorkload(files, ROPE_TEXT),
      ),
      row("register 1 KiB of two-byte text, new path", (files) =>
        registerNewWorkload(files, TWO_BYTE_TEXT),
      ),
      row("register 1 KiB of astral text, new path", (files) =>
        registerNewWorkload(files, ASTRAL_TEXT),
      ),
    ],
    close: async () => {},
  };
}
