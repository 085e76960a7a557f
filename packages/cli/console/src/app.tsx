import { useEffect, useState } from "preact/hooks";
import { call, type Scope, setCsrf } from "./api.js";
import { scopeLabel } from "./display.js";
import { NameList } from "./names.js";
import { ScopeBrowser } from "./scopes.js";
import { type SessionInfo, SignIn } from "./sign-in.js";
import { UploadForm } from "./upload-form.js";
import { Versions } from "./versions.js";

type State =
  | { phase: "checking" }
  | { phase: "signed-out" }
  | { phase: "signed-in"; session: SessionInfo };

/** The parents of a scope, outermost first, then the scope itself. */
function lineOf(scope: Scope): Scope[] {
  const app: Scope = { kind: "app", app: scope.app };
  if (scope.kind === "app") return [app];
  const user: Scope = { kind: "user", app: scope.app, user: scope.user };
  return scope.kind === "user" ? [app, user] : [app, user, scope];
}

export function App() {
  const [state, setState] = useState<State>({ phase: "checking" });
  useEffect(() => {
    call<SessionInfo>("GET", "/session").then(
      (session) => signedIn(session),
      () => setState({ phase: "signed-out" }),
    );
  }, []);
  const signedIn = (session: SessionInfo) => {
    setCsrf(session.csrf);
    setState({ phase: "signed-in", session });
  };
  if (state.phase === "checking") return <p class="hint">Loading…</p>;
  if (state.phase === "signed-out") return <SignIn onSignedIn={signedIn} />;
  const signOut = async () => {
    await call("DELETE", "/session").catch(() => undefined);
    setCsrf("");
    setState({ phase: "signed-out" });
  };
  return <Console onSignOut={signOut} bound={state.session.scope} />;
}

function Console(props: { onSignOut: () => void; bound: Scope | undefined }) {
  const [scope, setScope] = useState<Scope | undefined>();
  const [name, setName] = useState<string | undefined>();
  const [generation, setGeneration] = useState(0);
  const choose = (next: Scope | undefined) => {
    setScope(next);
    setName(undefined);
  };
  const line = scope === undefined ? [] : lineOf(scope);
  return (
    <div class="console">
      <header>
        <h1>artifact-kit console</h1>
        {props.bound === undefined ? null : (
          <span class="bound">serving {scopeLabel(props.bound)} only</span>
        )}
        <button type="button" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="breadcrumb" class="breadcrumb">
        <button type="button" onClick={() => choose(undefined)}>
          All apps
        </button>
        {line.map((part) => (
          <button key={scopeLabel(part)} type="button" onClick={() => choose(part)}>
            {scopeLabel(part)}
          </button>
        ))}
      </nav>
      <div class="columns">
        <div class="column">
          {/* A session has no children: its column lists its sibling sessions instead. */}
          <ScopeBrowser
            parent={scope?.kind === "session" ? lineOf(scope)[1] : scope}
            chosen={scope}
            onChoose={choose}
          />
        </div>
        {scope === undefined ? null : (
          <div class="column">
            <p class="scope-title">
              Artifacts of <strong>{scopeLabel(scope)}</strong> ({scope.kind} scope)
            </p>
            <NameList scope={scope} chosen={name} onChoose={setName} generation={generation} />
            <UploadForm
              scope={scope}
              defaultName={name}
              onUploaded={(uploaded) => {
                setGeneration((n) => n + 1);
                setName(uploaded);
              }}
            />
          </div>
        )}
        {scope === undefined || name === undefined ? null : (
          <div class="column wide">
            <Versions
              key={`${scopeLabel(scope)}|${name}|${generation}`}
              scope={scope}
              name={name}
              onDeleted={() => setGeneration((n) => n + 1)}
            />
          </div>
        )}
      </div>
    </div>
  );
}
