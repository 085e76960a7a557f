// What capabilities().transfer declares is what the service does. The transfer laws run only
// for the parts it declares, and callers (routers, the stream package, the CLI) choose how to
// move bytes by it: a part served but not declared would go untested and unused. So a part
// the declaration leaves out must be refused with unsupported_transfer and change nothing.

import type { ArtifactTransfer } from "../../transfer.js";
import type { ArtifactService, TransferCapabilities } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { expectArtifactError, expectEqual } from "../expect.js";
import { readAllVersions } from "../observe.js";
import { seededBytes } from "../payload.js";
import { NAME } from "./transfer-support.js";

const REFUSED = "unsupported_transfer";

/** An upload, a download and a ranged download, each refused where it is not declared. */
async function undeclaredPartsAreRefused({ service }: LawContext) {
  const declared: Partial<TransferCapabilities> = service.capabilities().transfer ?? {};
  const transfer = service as ArtifactService & Partial<ArtifactTransfer>;
  const refusals: Array<[what: string, attempt: () => Promise<unknown>]> = [];
  const scope = freshScope("undeclared-transfer");
  const data = seededBytes(64, 11);
  const { openUpload, openDownload } = transfer;
  if (declared.streamingUpload !== true && openUpload) {
    refusals.push([
      "openUpload, with streamingUpload undeclared",
      async () => {
        const sink = await openUpload.call(service, scope, NAME);
        await sink.write(data);
        return sink.finish();
      },
    ]);
  }
  if (openDownload) {
    const opened = (options: { range?: { offset: number; length: number } }) => async () =>
      (await openDownload.call(service, scope, NAME, options)).cancel();
    if (declared.streamingDownload !== true) {
      refusals.push(["openDownload, with streamingDownload undeclared", opened({})]);
    }
    if (declared.streamingDownload !== true || declared.byteRanges !== true) {
      refusals.push([
        "a ranged openDownload, with byteRanges undeclared",
        opened({ range: { offset: 1, length: 8 } }),
      ]);
    }
  }
  if (refusals.length === 0) {
    return skip("every transfer part the service has is declared in capabilities().transfer");
  }
  // A version to download: without one, not_found would hide whether the part is served.
  const { version } = await service.put(scope, NAME, data);
  for (const [what, attempt] of refusals) {
    await expectArtifactError(attempt, REFUSED, what);
  }
  // The refused upload published nothing: the name holds the version put, and only it.
  const versions = (await readAllVersions(service, scope, NAME)).map((meta) => meta.version);
  expectEqual(versions, [version], "the name's versions after the refused transfers");
  return undefined;
}

export const declaredTransferLaws = [
  check(
    "transfer",
    "a part capabilities().transfer does not declare (upload, download, byte ranges) is refused with unsupported_transfer and changes nothing",
    undeclaredPartsAreRefused,
  ),
];
