import {
  type ArtifactService,
  effectPendingReconciliation,
  quotaExceeded,
} from "@artifact-kit/core";
import type { JournaledArtifacts, JournaledEffect } from "@artifact-kit/effects";
import { versionsChecked } from "../checked.js";
import { undefinedIfNotFound } from "../missing.js";
import { toAdkVersion } from "../version.js";
import type { AdkDeleteRequest } from "../writer.js";

/**
 * Most live versions one journaled `deleteArtifact` removes (`maxDeleteVersions`). Each
 * version costs a head, a delete and three journal writes while the caller (a tool call)
 * waits; a name with more versions than this is refused whole instead of half deleted.
 */
export const DEFAULT_MAX_DELETE_VERSIONS = 1000;

/**
 * Deletes every live version of the request's name, one journaled delete per version, after
 * checking the count against `maxVersions` (past it: quota_exceeded, nothing deleted). Each
 * delete is committed as soon as it succeeded: ADK's `artifactDelta` records only saves, so
 * no session event will ever name it. A failure stops the walk and is rethrown as the
 * journaled delete reports it (effect_pending_reconciliation when the version may be gone);
 * versions already deleted stay deleted, and an effect left open is the reconciler's.
 * A version saved after the listing survives.
 */
export async function deleteEveryVersion(
  service: ArtifactService,
  journaled: JournaledArtifacts,
  request: AdkDeleteRequest,
  maxVersions: number,
): Promise<void> {
  const { scope, name, filename } = request;
  const versions = await versionsChecked(service, scope, name, maxVersions);
  if (versions.length > maxVersions) {
    throw quotaExceeded(
      "maxDeleteVersions",
      maxVersions,
      `"${filename}" has more than ${maxVersions} live versions (maxDeleteVersions); a journaled delete removes at most that many, so nothing was deleted`,
    );
  }
  for (const { version } of versions) {
    // Gone before our head (no effect recorded) or before our delete (settled not_applied):
    // someone else deleted it, and there is nothing of ours to commit.
    const deleted = await undefinedIfNotFound(journaled.delete(name, version));
    if (deleted === undefined) continue;
    request.onEffect?.(deleted.effect);
    await commitDelete(journaled, deleted, filename);
  }
}

async function commitDelete(
  journaled: JournaledArtifacts,
  deleted: JournaledEffect,
  filename: string,
): Promise<void> {
  try {
    await journaled.commit(deleted.effectId);
  } catch (error) {
    throw effectPendingReconciliation(
      deleted.effectId,
      `version ${toAdkVersion(deleted.receipt.version)} of "${filename}" is deleted but the journal could not commit effect ${deleted.effectId}; a reconciler will settle it`,
      error,
    );
  }
}
