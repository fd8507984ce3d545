import { defineConfig } from 'vite';

// Served by the user service at /account/ (services/user/src/routes/account-page.routes.ts).
export default defineConfig({
  base: '/account/',
  // Workspace packages from their TypeScript source, so that the page builds without `tsc -b` first.
  resolve: { conditions: ['development', 'module', 'browser'] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every script and stylesheet a file of its own: the Content-Security-Policy allows no inline code.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
