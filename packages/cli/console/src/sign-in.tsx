import { useState } from "preact/hooks";
import { ApiError, call, type Scope } from "./api.js";

export interface SessionInfo {
  csrf: string;
  scope?: Scope;
}

/** The token goes in a password field and one POST body; it is never kept by the page. */
export function SignIn({ onSignedIn }: { onSignedIn: (session: SessionInfo) => void }) {
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem("token") as HTMLInputElement;
    setBusy(true);
    try {
      const session = await call<SessionInfo>("POST", "/session", { body: { token: field.value } });
      field.value = "";
      onSignedIn(session);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401
          ? "That is not this server's token."
          : String(failure),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>artifact-kit console</h1>
      <form onSubmit={submit}>
        <label for="token">API token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error === undefined ? null : (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
      <p class="hint">
        The token is the one `artifact-kit serve` printed, or ARTIFACT_KIT_API_TOKEN.
      </p>
    </main>
  );
}
