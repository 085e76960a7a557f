import type { Scope } from "@artifact-kit/core";
import { FsEffectJournal, type JournaledArtifacts, journalArtifacts } from "@artifact-kit/effects";
import { FsArtifactService } from "@artifact-kit/fs";
import type { ScratchSpace } from "../scratch.js";
import type { StoreUnderTest } from "../store.js";

const SCOPE: Scope = { kind: "session", app: "bench", user: "u", session: "s" };

interface Opened {
  service: FsArtifactService;
  journal: FsEffectJournal;
  artifacts: JournaledArtifacts;
}

/** The fs adapter behind a journaled capability with an fs journal on the same disk. */
export class JournaledFsStore implements StoreUnderTest {
  readonly #scratch: ScratchSpace;
  readonly #owner: string;
  readonly #commit: boolean;
  #opened: Promise<Opened> | undefined;

  /** `commit`: also mark each effect committed, as a runtime does once its event is durable. */
  constructor(scratch: ScratchSpace, owner: string, commit: boolean) {
    this.#scratch = scratch;
    this.#owner = owner;
    this.#commit = commit;
  }

  #open(): Promise<Opened> {
    this.#opened ??= (async () => {
      const root = this.#scratch.fresh(this.#owner);
      const service = await FsArtifactService.open({ root: `${root}` });
      const journal = new FsEffectJournal({ root: this.#scratch.fresh(`${this.#owner}-journal`) });
      const artifacts = journalArtifacts(service, SCOPE, {
        journal,
        owner: "bench",
        leaseMs: 60_000,
      });
      return { service, journal, artifacts };
    })();
    return this.#opened;
  }

  async put(name: string, bytes: Uint8Array): Promise<unknown> {
    const { artifacts } = await this.#open();
    const written = await artifacts.put(name, bytes);
    if (this.#commit) await artifacts.commit(written.effectId);
    return written;
  }

  async getLatest(name: string): Promise<unknown> {
    return (await this.#open()).service.get(SCOPE, name);
  }

  async listVersions(name: string): Promise<unknown> {
    return (await this.#open()).service.listVersions(SCOPE, name);
  }

  async reset(): Promise<void> {
    await this.close();
  }

  async close(): Promise<void> {
    const opened = await this.#opened;
    this.#opened = undefined;
    if (opened === undefined) return;
    await opened.service.close();
    await opened.journal.close();
  }
}
