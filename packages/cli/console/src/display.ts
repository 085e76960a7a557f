// How untrusted text (names, ids, metadata) is shown: always as text (Preact escapes it),
// and with the characters that reorder or hide text made visible, so an RTL override in a
// name cannot disguise "txt.exe" as "exe.txt".

const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

export function visible(text: string): string {
  return text.replace(
    INVISIBLE,
    (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`,
  );
}

export function scopeLabel(scope: { kind: string; app: string; user?: string; session?: string }) {
  return [scope.app, scope.user, scope.session]
    .filter((id) => id !== undefined)
    .map(visible)
    .join(" / ");
}

export function formatBytes(size: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = size;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${size} B` : `${value.toFixed(1)} ${units[unit]}`;
}

export function formatTime(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d+Z$/, " UTC");
}
