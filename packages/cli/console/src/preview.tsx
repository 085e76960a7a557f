import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/common";
import { marked } from "marked";
import Papa from "papaparse";
import { useEffect, useState } from "preact/hooks";
import { contentPath, fetchText, type Scope, type VersionInfo } from "./api.js";
import { JsonTree } from "./json-tree.js";
import { type PreviewKind, previewKind } from "./preview-kind.js";

const TEXT_PREVIEW_BYTES = 1024 * 1024;
const CSV_ROWS = 100;

interface PreviewProps {
  scope: Scope;
  name: string;
  version: VersionInfo;
}

/** A version shown without downloading it; bytes come from the server's content route. */
export function Preview({ scope, name, version }: PreviewProps) {
  const kind = previewKind(version.mimeType, name);
  const src = contentPath(scope, name, version.version, "inline");
  switch (kind) {
    case "image":
      return <img class="preview-image" src={src} alt={`preview of version ${version.version}`} />;
    case "sandboxed":
      // No allow-scripts, no allow-same-origin: the document runs nothing and owns no origin.
      return <iframe class="preview-frame" sandbox="" src={src} title="sandboxed preview" />;
    case "pdf":
      // The browser's own viewer, which Chromium refuses to run in a sandboxed frame (it
      // shows a broken-plugin page instead). The viewer renders the bytes in its own
      // extension origin, PDF scripts run in the PDF engine, never as this page, and the
      // bytes come with nosniff and `default-src 'none'` (see contentHeaders on the server).
      return <iframe class="preview-frame" src={src} title="PDF preview" />;
    case "audio":
      // Media elements read the content route with byte ranges, as far as they need.
      // biome-ignore lint/a11y/useMediaCaption: an artifact has no captions to offer
      return <audio class="preview-audio" controls preload="metadata" src={src} />;
    case "video":
      // biome-ignore lint/a11y/useMediaCaption: an artifact has no captions to offer
      return <video class="preview-video" controls preload="metadata" src={src} />;
    case "none":
      return <p class="hint">No preview for {version.mimeType}; download it instead.</p>;
    default:
      return <TextPreview {...{ scope, name, version, kind }} />;
  }
}

function TextPreview({ scope, name, version, kind }: PreviewProps & { kind: PreviewKind }) {
  const [loaded, setLoaded] = useState<{ text: string; truncated: boolean } | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setLoaded(undefined);
    setError(undefined);
    fetchText(scope, name, version.version, TEXT_PREVIEW_BYTES).then(setLoaded, (failure: Error) =>
      setError(failure.message),
    );
  }, [scope, name, version.version]);
  if (error !== undefined)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (loaded === undefined) return <p class="hint">Loading preview…</p>;
  return (
    <div class={`preview preview-${kind}`} data-preview={kind}>
      {loaded.truncated ? <p class="hint">Showing the first 1 MiB.</p> : null}
      <TextBody kind={kind} text={loaded.text} name={name} />
    </div>
  );
}

function TextBody({ kind, text, name }: { kind: PreviewKind; text: string; name: string }) {
  if (kind === "markdown") {
    // Sanitized to plain formatting: any HTML the document carries is dropped, never run.
    const html = DOMPurify.sanitize(marked.parse(text, { async: false }), {
      USE_PROFILES: { html: true },
      FORBID_TAGS: ["style", "form", "input", "button", "iframe", "object", "embed"],
    });
    // Sanitized by DOMPurify just above.
    return <article class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
  }
  if (kind === "json") {
    try {
      return <JsonTree value={JSON.parse(text)} />;
    } catch {
      return <pre class="text">{text}</pre>;
    }
  }
  if (kind === "csv") return <CsvTable text={text} />;
  if (kind === "code") {
    const language = name.split(".").pop() ?? "";
    const html = hljs.getLanguage(language)
      ? hljs.highlight(text, { language }).value
      : hljs.highlightAuto(text).value;
    // highlight.js escapes the text it wraps in its spans.
    return <pre class="code hljs" dangerouslySetInnerHTML={{ __html: html }} />;
  }
  return <pre class="text">{text}</pre>;
}

function CsvTable({ text }: { text: string }) {
  const parsed = Papa.parse<string[]>(text, { preview: CSV_ROWS + 1, skipEmptyLines: true });
  const [head = [], ...rows] = parsed.data;
  return (
    <div class="table-wrap">
      <table class="csv">
        <thead>
          <tr>
            {head.map((cell, index) => (
              <th key={index}>{cell}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index}>
              {row.map((cell, column) => (
                <td key={column}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">First {rows.length} rows.</p>
    </div>
  );
}
