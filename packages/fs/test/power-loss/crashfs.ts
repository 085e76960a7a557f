import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const START_SCRIPT = fileURLToPath(new URL("../../scripts/crashfs.sh", import.meta.url));

/** What a cut dropped and kept, as crashfs reports it on remount. */
export interface CutReport {
  /** The mutating operation the cut landed on ("idle": between operations). */
  readonly cutOn: string;
  readonly ops: number;
  /** Namespace operations not yet made durable by a directory fsync, and those kept. */
  readonly pending: number;
  readonly keptOps: number;
  /** Files written since their last fsync, and those whose writes were kept or torn. */
  readonly dirtyFiles: number;
  readonly keptWrites: number;
  readonly tornWrites: number;
}

export type CutMode = "drop" | "subset";

/** One power-loss trial: its seed, what happened, and every property it found broken. */
export interface TrialResult {
  readonly mode: CutMode;
  readonly seed: number;
  readonly acknowledged: number;
  /** The step in flight when the power was cut ("idle": every step was acknowledged). */
  readonly inFlight: string;
  readonly report: CutReport;
  /** Each starts with its kind: lost, undone, torn, reused, garbage, listing, broken. */
  readonly violations: string[];
}

/** One line per trial that found something broken, with what replays it. */
export function trialFailures(results: readonly TrialResult[]): string[] {
  return results
    .filter((r) => r.violations.length > 0)
    .map(
      (r) =>
        `POWER_LOSS_MODE=${r.mode} POWER_LOSS_SEED=${r.seed} (cut in ${r.inFlight} on ${r.report.cutOn}): ${r.violations.join("; ")}`,
    );
}

/**
 * The path of the crashfs binary: CRASHFS_BIN (as .ci/run exports it), or built and checked
 * by the start script, which fails with the reason when this machine cannot mount it.
 */
export function crashfsBinary(): string {
  const given = process.env.CRASHFS_BIN;
  if (given) return given;
  const line = execFileSync("bash", [START_SCRIPT], { encoding: "utf8" }).trim();
  return line.replace(/^export CRASHFS_BIN=/, "");
}

/** A running crashfs: one mount, driven one command at a time. */
export class CrashFs {
  readonly mountpoint: string;
  readonly #workdir: string;
  readonly #process: ChildProcess;
  readonly #answers: AsyncIterator<string>;

  private constructor(mountpoint: string, workdir: string, child: ChildProcess) {
    this.mountpoint = mountpoint;
    this.#workdir = workdir;
    this.#process = child;
    const stdout = child.stdout;
    if (!stdout) throw new Error("crashfs has no stdout");
    this.#answers = createInterface({ input: stdout })[Symbol.asyncIterator]();
  }

  /** Mounts an empty disk on a new temporary mount point (the backing trees live on tmpfs). */
  static async start(binary: string): Promise<CrashFs> {
    const mountpoint = await mkdtemp(join(tmpdir(), "artifact-kit-crashfs-"));
    const workdir = await mkdtemp("/dev/shm/artifact-kit-crashfs-");
    const child = spawn(binary, ["-mountpoint", mountpoint, "-workdir", workdir], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const crashfs = new CrashFs(mountpoint, workdir, child);
    await crashfs.#answer();
    return crashfs;
  }

  /** Cuts the power at the `count`th mutating operation from now. */
  async arm(count: number): Promise<void> {
    await this.#command(`arm ${count}`);
  }

  /** Cuts the power now, if it is not cut yet. */
  async cut(): Promise<void> {
    await this.#command("cut");
  }

  /** Mutating operations since the last mount, and where the cut landed ("" while powered). */
  async status(): Promise<{ ops: number; cutOn: string }> {
    return (await this.#command("status")) as { ops: number; cutOn: string };
  }

  /** Unmounts, and mounts what a disk would hold after the cut (cutting now if not yet cut). */
  async remount(mode: CutMode, seed: number): Promise<CutReport> {
    return (await this.#command(`remount ${mode} ${seed}`)) as CutReport;
  }

  /** Unmounts and mounts an empty disk. */
  async fresh(): Promise<void> {
    await this.#command("fresh");
  }

  /** Unmounts, stops crashfs and removes its directories. */
  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.#process.once("close", resolve));
    this.#process.stdin?.end();
    await exited;
    await rm(this.mountpoint, { recursive: true, force: true });
    await rm(this.#workdir, { recursive: true, force: true });
  }

  async #command(line: string): Promise<unknown> {
    this.#process.stdin?.write(`${line}\n`);
    return this.#answer();
  }

  async #answer(): Promise<unknown> {
    const next = await this.#answers.next();
    if (next.done) throw new Error(`crashfs exited (${this.#process.exitCode})`);
    const answer = next.value;
    if (!answer.startsWith("ok ")) throw new Error(`crashfs: ${answer}`);
    return JSON.parse(answer.slice(3));
  }
}
