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
