/// <reference types="vitest/config" />
import { defineConfig } from "vite";

// The server serves dist/ on its own port (server/http.py); `npm run dev` proxies /ws and /api to a
// server on 127.0.0.1:8765 (`guobiao serve`).
export default defineConfig({
  base: "./",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2020",
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: {
    proxy: {
      "/ws": { target: "ws://127.0.0.1:8765", ws: true },
      "/api": "http://127.0.0.1:8765",
    },
  },
  test: {
    environment: "node",
    include: ["test/**/*.test.ts"],
    // The reducer tests replay whole seeded matches: seconds on a busy machine, not milliseconds.
    testTimeout: 60_000,
  },
});
