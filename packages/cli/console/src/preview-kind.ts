// Which preview a version gets, from its media type and name. HTML and SVG are never shown
// as this origin's content: they go in a sandboxed frame (no script, no origin), and the
// server serves them under a sandboxing policy as well.

export type PreviewKind =
  | "image"
  | "sandboxed"
  | "pdf"
  | "audio"
  | "video"
  | "markdown"
  | "json"
  | "csv"
  | "code"
  | "text"
  | "none";

const CODE =
  /\.(ts|tsx|js|mjs|cjs|jsx|py|go|rs|java|c|h|cc|cpp|sh|bash|sql|yaml|yml|toml|css|xml)$/i;

export function previewKind(mimeType: string, name: string): PreviewKind {
  const type = mimeType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "image/svg+xml" || type === "text/html" || type === "application/xhtml+xml") {
    return "sandboxed";
  }
  if (type.startsWith("image/")) return "image";
  if (type === "application/pdf") return "pdf";
  if (type.startsWith("audio/")) return "audio";
  if (type.startsWith("video/")) return "video";
  if (type === "text/markdown" || /\.(md|markdown)$/i.test(name)) return "markdown";
  if (type === "application/json" || type.endsWith("+json") || /\.json$/i.test(name)) return "json";
  if (type === "text/csv" || /\.csv$/i.test(name)) return "csv";
  if (CODE.test(name) || type === "application/javascript" || type === "text/javascript")
    return "code";
  if (type.startsWith("text/")) return "text";
  return "none";
}
