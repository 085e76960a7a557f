import { useState } from "preact/hooks";
import { call, contentPath, namePath, type Scope } from "./api.js";
import { ConfirmDialog } from "./confirm-dialog.js";
import { visible } from "./display.js";

type Target = { selector: number | "latest" | "all"; what: string };

/** Download, a signed link, and the three deletions of a version's name. */
export function VersionActions(props: {
  scope: Scope;
  name: string;
  version: number;
  latest: number;
  count: number;
  onDeleted: () => void;
}) {
  const { scope, name, version } = props;
  const [link, setLink] = useState<string | undefined>();
  const [pending, setPending] = useState<Target | undefined>();
  const [error, setError] = useState<string | undefined>();
  const shown = visible(name);

  // The store's own URL when it makes them (signedBy "backend"), else serve's signed path.
  const makeLink = async () => {
    const made = await call<{ url?: string; path?: string; expiresAt: number }>(
      "POST",
      `${namePath(scope, name)}/versions/${version}/link`,
      { body: { expiresInSeconds: 3600 } },
    );
    setLink(made.url ?? `${location.origin}${made.path ?? ""}`);
  };

  const remove = async (target: Target) => {
    setPending(undefined);
    try {
      const path =
        target.selector === "all"
          ? namePath(scope, name)
          : `${namePath(scope, name)}/versions/${target.selector}`;
      await call("DELETE", path);
      props.onDeleted();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  return (
    <div class="actions">
      <a class="button" href={contentPath(scope, name, version, "attachment")} download>
        Download
      </a>
      <button
        type="button"
        onClick={() => makeLink().catch((failure: Error) => setError(failure.message))}
      >
        Signed link (1 hour)
      </button>
      <button
        type="button"
        class="danger"
        onClick={() => setPending({ selector: version, what: `version ${version} of ${shown}` })}
      >
        Delete this version
      </button>
      <button
        type="button"
        class="danger"
        onClick={() =>
          setPending({
            selector: "latest",
            what: `the latest version (${props.latest}) of ${shown}`,
          })
        }
      >
        Delete latest
      </button>
      <button
        type="button"
        class="danger"
        onClick={() =>
          setPending({ selector: "all", what: `all ${props.count} listed versions of ${shown}` })
        }
      >
        Delete all
      </button>
      {link === undefined ? null : (
        <p class="link">
          <label for="signed-link">Signed link</label>
          <input
            id="signed-link"
            readOnly
            value={link}
            onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
          />
        </p>
      )}
      {error === undefined ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {pending === undefined ? null : (
        <ConfirmDialog
          what={pending.what}
          onConfirm={() => remove(pending)}
          onCancel={() => setPending(undefined)}
        />
      )}
    </div>
  );
}
