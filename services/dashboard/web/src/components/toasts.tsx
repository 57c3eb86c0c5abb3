import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import styles from './toasts.module.css';

export type ToastKind = 'success' | 'error' | 'info';
type Toast = { id: number; kind: ToastKind; message: string; detail?: string | undefined };
type Toaster = { show: (kind: ToastKind, message: string, detail?: string) => void };

const ToastContext = createContext<Toaster | null>(null);
const TOAST_MS = 6_000;

/**
 * Toasts live in one polite live region that is always in the document, so screen readers announce
 * each new message. Messages may come from a plugin: they are rendered as text only.
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);
  const timers = useRef(new Map<number, number>());

  const dismiss = useCallback((id: number) => {
    setToasts((list) => list.filter((t) => t.id !== id));
    const timer = timers.current.get(id);
    if (timer !== undefined) window.clearTimeout(timer);
    timers.current.delete(id);
  }, []);

  const show = useCallback(
    (kind: ToastKind, message: string, detail?: string) => {
      const id = nextId.current++;
      setToasts((list) => [...list.slice(-4), { id, kind, message, detail }]);
      timers.current.set(
        id,
        window.setTimeout(() => dismiss(id), kind === 'error' ? TOAST_MS * 2 : TOAST_MS),
      );
    },
    [dismiss],
  );

  useEffect(() => {
    const all = timers.current;
    return () => all.forEach((t) => window.clearTimeout(t));
  }, []);

  const value = useMemo(() => ({ show }), [show]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className={styles.toasts} role="status" aria-live="polite" aria-label="Notifications">
        {toasts.map((t) => (
          <div
            key={t.id}
            className={t.kind === 'info' ? styles.toast : `${styles.toast} ${styles[t.kind]}`}
            role={t.kind === 'error' ? 'alert' : undefined}
          >
            <div className={styles.text}>
              <strong>{t.message}</strong>
              {t.detail ? <span className={styles.detail}>{t.detail}</span> : null}
            </div>
            <button
              type="button"
              className={styles.close}
              aria-label="Dismiss notification"
              onClick={() => dismiss(t.id)}
            >
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): Toaster {
  const toaster = useContext(ToastContext);
  if (!toaster) throw new Error('useToast must be used inside ToastProvider');
  return toaster;
}
