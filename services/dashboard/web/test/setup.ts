// Component tests (jest "web" project): Testing Library's matchers, and the browser features the
// dashboard uses that jest's jsdom lacks.
import '@testing-library/jest-dom';
import { cleanup } from '@testing-library/react';
import { TextDecoder, TextEncoder } from 'node:util';

// react-router encodes locations with these; every browser has them.
Object.assign(globalThis, { TextEncoder, TextDecoder });

afterEach(cleanup);

// jsdom has <dialog> but not its modal methods: open/close as the attribute, which is what the tests read.
if (typeof HTMLDialogElement !== 'undefined' && !HTMLDialogElement.prototype.showModal) {
  HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
    this.removeAttribute('open');
    this.dispatchEvent(new Event('close'));
  };
}

// react-router's data router builds a Request for every navigation (a page's `navigate(...)` after a save);
// jest's jsdom has none. No route here has a loader, so the router reads only its url, method and signal.
if (typeof globalThis.Request === 'undefined') {
  class NavigationRequest {
    readonly url: string;
    readonly method: string;
    readonly signal: AbortSignal | null;
    constructor(input: string | URL, init: { method?: string; signal?: AbortSignal | null } = {}) {
      this.url = String(input);
      this.method = init.method ?? 'GET';
      this.signal = init.signal ?? null;
    }
  }
  Object.assign(globalThis, { Request: NavigationRequest });
}
