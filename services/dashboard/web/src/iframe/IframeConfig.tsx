import type { IframeConfigView } from '@rolelink/contracts';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ErrorBanner } from '../components/ErrorState';
import { useToast } from '../components/toasts';
import { embedOrigin, IFRAME_DEFAULT_HEIGHT, parseIframeMessage } from './messages';
import { useUnsavedChangesPrompt } from './use-unsaved-prompt';
import panel from '../config-form/config-panel.module.css';
import styles from './IframeConfig.module.css';

/** Spec 4.3: exactly these sandbox tokens. */
const SANDBOX = 'allow-scripts allow-forms allow-same-origin allow-popups allow-popups-to-escape-sandbox';

/**
 * Iframe mode (spec 4.3, 5.7, 6.3). The iframe's src is the first embed_url received and never changes:
 * later GET /config answers carry fresh rl_tokens but would reload the plugin's page and lose its edits.
 * Messages are trusted only from the embed URL's origin and from this iframe's own window.
 */
export function IframeConfig({ view }: { view: IframeConfigView }) {
  const [src] = useState(view.embed_url);
  const origin = useMemo(() => embedOrigin(src), [src]);
  const frameRef = useRef<HTMLIFrameElement>(null);
  const [height, setHeight] = useState(IFRAME_DEFAULT_HEIGHT);
  const [dirty, setDirty] = useState(false);
  const toast = useToast();
  const prompt = useUnsavedChangesPrompt(dirty, `${view.name}`);

  useEffect(() => {
    if (!origin) return;
    const onMessage = (event: MessageEvent) => {
      const frame = frameRef.current;
      if (event.origin !== origin || !frame || event.source === null || event.source !== frame.contentWindow) return;
      const message = parseIframeMessage(event.data);
      if (!message) return;
      switch (message.type) {
        case 'rl:resize':
          setHeight(message.height);
          break;
        case 'rl:saved':
          toast.show('success', 'Saved');
          break;
        case 'rl:dirty':
          setDirty(message.dirty);
          break;
        case 'rl:toast':
          toast.show(message.kind, message.message);
          break;
      }
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }, [origin, toast]);

  useEffect(() => {
    if (!origin) return;
    const onVisibility = () => {
      if (document.visibilityState === 'visible')
        frameRef.current?.contentWindow?.postMessage({ type: 'rl:visible' }, origin);
    };
    document.addEventListener('visibilitychange', onVisibility);
    return () => document.removeEventListener('visibilitychange', onVisibility);
  }, [origin]);

  return (
    <div className={panel.panel}>
      <div className={panel.header}>
        <h2>{view.name}</h2>
        {view.description ? <p className={panel.description}>{view.description}</p> : null}
        {dirty ? (
          <p className="muted small" role="status">
            Unsaved changes in the plugin's page.
          </p>
        ) : null}
      </div>
      {origin ? (
        <iframe
          ref={frameRef}
          className={styles.frame}
          title={`${view.name} configuration`}
          src={src}
          sandbox={SANDBOX}
          style={{ height: `${height}px` }}
        />
      ) : (
        <ErrorBanner message="The plugin's embed URL is not a valid web address." />
      )}
      {prompt}
    </div>
  );
}
