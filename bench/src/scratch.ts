import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Temporary directories on the real disk for the filesystem suites: one base per run, one
 * directory per store, replaced whole (untimed) when the store is reset, removed at close.
 */
export class ScratchSpace {
  // The real path: the fs adapter refuses a root with a symbolic link among its parents.
  readonly #base = realpathSync(mkdtempSync(join(tmpdir(), "artifact-kit-bench-")));
  #generation = 0;

  /** A new empty directory for `owner`, after removing the one it had. */
  fresh(owner: string): string {
    rmSync(join(this.#base, owner), { recursive: true, force: true });
    this.#generation += 1;
    const dir = join(this.#base, owner, String(this.#generation));
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  close(): void {
    rmSync(this.#base, { recursive: true, force: true });
  }
}
