import { visible } from "./display.js";

/** JSON as a tree of <details>: objects and arrays folded below the first level. */
export function JsonTree({
  value,
  label,
  depth = 0,
}: {
  value: unknown;
  label?: string;
  depth?: number;
}) {
  const name = label === undefined ? null : <span class="json-key">{visible(label)}: </span>;
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value as Record<string, unknown>);
    const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
    return (
      <details class="json" open={depth === 0}>
        <summary>
          {name}
          {summary}
        </summary>
        {entries.map(([key, item]) => (
          <JsonTree key={key} value={item} label={key} depth={depth + 1} />
        ))}
      </details>
    );
  }
  return (
    <div class="json-leaf">
      {name}
      <span class={`json-${value === null ? "null" : typeof value}`}>
        {visible(JSON.stringify(value))}
      </span>
    </div>
  );
}
