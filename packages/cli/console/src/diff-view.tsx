import { diffLines } from "diff";
import { useEffect, useState } from "preact/hooks";
import { fetchText, type Scope } from "./api.js";

const DIFF_BYTES = 1024 * 1024;

/** Two versions of a text artifact, line by line: removed lines, then added ones. */
export function DiffView(props: { scope: Scope; name: string; from: number; to: number }) {
  const { scope, name, from, to } = props;
  const [texts, setTexts] = useState<[string, string] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setTexts(undefined);
    Promise.all([
      fetchText(scope, name, from, DIFF_BYTES),
      fetchText(scope, name, to, DIFF_BYTES),
    ]).then(
      ([a, b]) => setTexts([a.text, b.text]),
      (failure: Error) => setError(failure.message),
    );
  }, [scope, name, from, to]);
  if (error !== undefined)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (texts === undefined) return <p class="hint">Loading both versions…</p>;
  const parts = diffLines(texts[0], texts[1]);
  return (
    <section class="diff" aria-label={`diff of versions ${from} and ${to}`}>
      <h3>
        Version {from} → version {to}
      </h3>
      <pre>
        {parts.map((part, index) => (
          <span
            key={index}
            class={part.added ? "added" : part.removed ? "removed" : "same"}
            data-diff={part.added ? "added" : part.removed ? "removed" : "same"}
          >
            {part.value
              .replace(/\n$/, "")
              .split("\n")
              .map((line) => `${part.added ? "+" : part.removed ? "-" : " "} ${line}\n`)
              .join("")}
          </span>
        ))}
      </pre>
    </section>
  );
}
