import { useState } from "preact/hooks";
import { type Scope, upload } from "./api.js";
import { formatBytes } from "./display.js";

/** Upload a file as a new version, with a progress bar while the bytes go. */
export function UploadForm(props: {
  scope: Scope;
  defaultName: string | undefined;
  onUploaded: (name: string) => void;
}) {
  const [progress, setProgress] = useState<{ sent: number; total: number } | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem("file") as HTMLInputElement).files?.[0];
    const nameField = form.elements.namedItem("upload-name") as HTMLInputElement;
    if (file === undefined) return;
    const name = nameField.value === "" ? file.name : nameField.value;
    setMessage(undefined);
    setProgress({ sent: 0, total: file.size });
    try {
      const meta = await upload(props.scope, name, file, (sent, total) =>
        setProgress({ sent, total }),
      );
      setMessage(`Uploaded ${name} as version ${meta.version} (${formatBytes(meta.size)}).`);
      props.onUploaded(name);
    } catch (failure) {
      setMessage(`Upload failed: ${(failure as Error).message}`);
    } finally {
      setProgress(undefined);
    }
  };
  return (
    <form class="upload" onSubmit={submit} aria-label="upload">
      <h3>Upload</h3>
      <label for="file">File</label>
      <input id="file" name="file" type="file" required />
      <label for="upload-name">Name (default: the file's name)</label>
      <input id="upload-name" name="upload-name" type="text" value={props.defaultName ?? ""} />
      <button type="submit" disabled={progress !== undefined}>
        Upload
      </button>
      {progress === undefined ? null : (
        <div class="progress">
          <progress
            id="upload-progress"
            max={progress.total}
            value={progress.sent}
            aria-label="upload progress"
          />
          <span>
            {formatBytes(progress.sent)} of {formatBytes(progress.total)}
          </span>
        </div>
      )}
      {message === undefined ? null : <p role="status">{message}</p>}
    </form>
  );
}
