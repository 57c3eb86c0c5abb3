/**
 * The iframe → dashboard window messages of spec 6.3, parsed from untrusted `event.data`. React-free so
 * jest can test it. Origin and source are checked by the caller before a message gets here.
 */

export type IframeMessage =
  | { type: 'rl:resize'; height: number }
  | { type: 'rl:saved' }
  | { type: 'rl:dirty'; dirty: boolean }
  | { type: 'rl:toast'; message: string; kind: 'success' | 'error' };

export const IFRAME_MIN_HEIGHT = 200;
export const IFRAME_MAX_HEIGHT = 4000;
export const IFRAME_DEFAULT_HEIGHT = 600;
/** Long plugin toasts are cut so they cannot fill the screen. */
const TOAST_MAX = 500;

export function clampHeight(height: number): number {
  return Math.min(IFRAME_MAX_HEIGHT, Math.max(IFRAME_MIN_HEIGHT, Math.round(height)));
}

/** The message, or null when `data` is not one of the four known shapes. */
export function parseIframeMessage(data: unknown): IframeMessage | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const d = data as Record<string, unknown>;
  switch (d.type) {
    case 'rl:resize':
      return typeof d.height === 'number' && Number.isFinite(d.height)
        ? { type: 'rl:resize', height: clampHeight(d.height) }
        : null;
    case 'rl:saved':
      return { type: 'rl:saved' };
    case 'rl:dirty':
      return typeof d.dirty === 'boolean' ? { type: 'rl:dirty', dirty: d.dirty } : null;
    case 'rl:toast':
      if (typeof d.message !== 'string' || d.message.trim() === '') return null;
      return {
        type: 'rl:toast',
        message: d.message.slice(0, TOAST_MAX),
        kind: d.kind === 'success' ? 'success' : 'error',
      };
    default:
      return null;
  }
}

/** The origin messages must come from and go to: the embed URL's, or null if it is not an http(s) URL. */
export function embedOrigin(embedUrl: string): string | null {
  try {
    const url = new URL(embedUrl);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}
