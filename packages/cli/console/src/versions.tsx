import { useEffect, useState } from "preact/hooks";
import { VersionActions } from "./actions.js";
import {
  call,
  namePath,
  type Page,
  query,
  type Scope,
  type VersionDetail,
  type VersionInfo,
} from "./api.js";
import { DiffView } from "./diff-view.js";
import { formatBytes, formatTime, visible } from "./display.js";
import { usePaged } from "./paged.js";
import { Preview } from "./preview.js";
import { previewKind } from "./preview-kind.js";

/** A name's versions, one chosen version's details and preview, and a diff of two. */
export function Versions(props: { scope: Scope; name: string; onDeleted: () => void }) {
  const { scope, name } = props;
  const paged = usePaged<VersionInfo, number>(`${namePath(scope, name)}`, (cursor) =>
    call<Page<VersionInfo, number>>(
      "GET",
      `${namePath(scope, name)}/versions${query({ cursor, limit: 100 })}`,
    ),
  );
  const [chosen, setChosen] = useState<number | undefined>();
  const [compare, setCompare] = useState<number | undefined>();
  const { items, hasMore, loading, loadMore } = paged;
  useEffect(() => {
    setChosen(undefined);
    setCompare(undefined);
  }, [scope, name]);
  const latest = items[items.length - 1];
  const current = items.find((v) => v.version === chosen) ?? latest;
  const textual =
    current !== undefined &&
    !["image", "pdf", "audio", "video", "none", "sandboxed"].includes(
      previewKind(current.mimeType, name),
    );
  return (
    <section class="versions" aria-label="versions">
      <h2 class="artifact-name" title={visible(name)}>
        {visible(name)}
      </h2>
      <table class="version-table">
        <thead>
          <tr>
            <th>Version</th>
            <th>Size</th>
            <th>Type</th>
            <th>SHA-256</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {items.map((v) => (
            <tr key={v.version} class={v.version === current?.version ? "chosen" : ""}>
              <td>
                <button
                  type="button"
                  aria-pressed={v.version === current?.version}
                  onClick={() => setChosen(v.version)}
                >
                  v{v.version}
                </button>
              </td>
              <td>{formatBytes(v.size)}</td>
              <td>{visible(v.mimeType)}</td>
              <td class="digest" title={v.sha256}>
                {v.sha256.slice(0, 12)}…
              </td>
              <td>{formatTime(v.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {hasMore ? (
        <button type="button" onClick={loadMore} disabled={loading}>
          More versions
        </button>
      ) : null}
      {current === undefined || latest === undefined ? null : (
        <>
          <Metadata scope={scope} name={name} version={current.version} />
          <VersionActions
            scope={scope}
            name={name}
            version={current.version}
            latest={latest.version}
            count={items.length}
            onDeleted={() => {
              paged.reload();
              props.onDeleted();
            }}
          />
          {textual && items.length > 1 ? (
            <p>
              <label for="compare">Compare with</label>
              <select
                id="compare"
                value={compare ?? ""}
                onChange={(e) => {
                  const value = (e.currentTarget as HTMLSelectElement).value;
                  setCompare(value === "" ? undefined : Number(value));
                }}
              >
                <option value="">(no diff)</option>
                {items
                  .filter((v) => v.version !== current.version)
                  .map((v) => (
                    <option key={v.version} value={v.version}>
                      version {v.version}
                    </option>
                  ))}
              </select>
            </p>
          ) : null}
          {compare === undefined ? (
            <Preview scope={scope} name={name} version={current} />
          ) : (
            <DiffView scope={scope} name={name} from={compare} to={current.version} />
          )}
        </>
      )}
    </section>
  );
}

function Metadata(props: { scope: Scope; name: string; version: number }) {
  const [detail, setDetail] = useState<VersionDetail | undefined>();
  useEffect(() => {
    setDetail(undefined);
    call<VersionDetail>(
      "GET",
      `${namePath(props.scope, props.name)}/versions/${props.version}`,
    ).then(setDetail, () => setDetail(undefined));
  }, [props.scope, props.name, props.version]);
  if (detail === undefined) return null;
  return (
    <details class="metadata" open>
      <summary>Metadata</summary>
      <dl>
        <dt>SHA-256</dt>
        <dd class="digest">{detail.sha256}</dd>
        <dt>Custom</dt>
        <dd>
          <pre>{visible(JSON.stringify(detail.metadata, null, 2))}</pre>
        </dd>
      </dl>
    </details>
  );
}
