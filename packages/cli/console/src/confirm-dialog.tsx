import { useEffect, useRef } from "preact/hooks";

/**
 * A modal that names exactly what a deletion removes. The focus starts on Cancel, so Enter
 * alone never deletes; Escape cancels.
 */
export function ConfirmDialog(props: {
  what: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
    cancel.current?.focus();
  }, []);
  return (
    <dialog ref={dialog} class="confirm" aria-label="confirm deletion" onCancel={props.onCancel}>
      <p>This deletes:</p>
      <p class="what">{props.what}</p>
      <p>It cannot be undone.</p>
      <div class="buttons">
        <button type="button" ref={cancel} onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={props.onConfirm}>
          Delete
        </button>
      </div>
    </dialog>
  );
}
