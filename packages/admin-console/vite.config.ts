import { defineConfig } from 'vite';

// Served by the user service at /admin/ (services/user/src/routes/admin-console.routes.ts).
export default defineConfig({
  base: '/admin/',
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
