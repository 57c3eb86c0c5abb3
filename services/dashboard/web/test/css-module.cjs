// What a CSS import is in the component tests (jest's "web" project): every class name maps to itself,
// so `styles.card` is "card" (Vite would hash it). Not an ES module, so the import's default is this proxy.
module.exports = new Proxy({}, { get: (_target, key) => (key === '__esModule' ? false : key) });
