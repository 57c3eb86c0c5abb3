import { useEffect, useRef, useState } from 'react';

export type DialogPreview<T> = { view: T | null; error: string | null };

/**
 * What a confirmation dialog is about to do, loaded afresh each time it opens (`open` turns true) and for
 * each `key` (the link, or the choice the preview depends on): the strip preview of the delete dialog, the
 * held change of Apply removals. Closing or a new key aborts the request in flight; an abort is no error.
 */
export function useDialogPreview<T>(open: boolean, load: (signal: AbortSignal) => Promise<T>, key: string): DialogPreview<T> {
  const [preview, setPreview] = useState<DialogPreview<T>>({ view: null, error: null });
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    if (!open) return;
    const abort = new AbortController();
    setPreview({ view: null, error: null });
    loadRef.current(abort.signal).then(
      (view) => setPreview({ view, error: null }),
      (err: unknown) => {
        if (!abort.signal.aborted) setPreview({ view: null, error: err instanceof Error ? err.message : String(err) });
      },
    );
    return () => abort.abort();
  }, [open, key]);
  return preview;
}
