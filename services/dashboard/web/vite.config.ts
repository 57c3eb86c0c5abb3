import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The Express side (services/dashboard) serves dist/ with CSP `script-src 'self'; style-src 'self'`, so
// the build must not inline scripts, styles or assets: everything is emitted as same-origin files.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: {
    // `pnpm --filter @rolelink/dashboard-web dev` against a dashboard service running on port 3001.
    proxy: {
      '/dashboard-api': 'http://127.0.0.1:3001',
      '/auth': 'http://127.0.0.1:3001',
    },
  },
});
