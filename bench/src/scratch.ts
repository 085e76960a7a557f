import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Temporary directories on the real disk for the filesystem suites: one base per run, one
 * directory per store, replaced whole (untimed) when the store is reset, removed at close.
 *
 * Each removal is followed by a sync of the file systems, untimed: the space it frees is
 * given back to the disk at the file system's next journal commit (at once, on a disk
 * mounted with `discard`, as the VM's is), and without the sync that commit lands on
 * whatever is measured next. On the VM, a get after a case that had freed 256 MiB ran at
 * 0.82x-0.89x of its floor instead of 0.93x-0.97x alone.
 */
export class ScratchSpace {
  // The real path: the fs adapter refuses a root with a symbolic link among its parents.
  readonly #base = realpathSync(mkdtempSync(join(tmpdir(), "artifact-kit-bench-")));
  #generation = 0;

  /** A new empty directory for `owner`, after removing the one it had. */
  fresh(owner: string): string {
    rmSync(join(this.#base, owner), { recursive: true, force: true });
    settleDisk();
    this.#generation += 1;
    const dir = join(this.#base, owner, String(this.#generation));
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  close(): void {
    rmSync(this.#base, { recursive: true, force: true });
    settleDisk();
  }
}

/** Waits until every file system has written out what is pending (sync(1)). */
function settleDisk(): void {
  spawnSync("sync", { stdio: "ignore" });
}
