// Builds the page into dist/ (index.html, app.js, app.css and the fonts the styles name).
import { copyFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const dist = join(here, "dist");
await mkdir(dist, { recursive: true });
const fonts = Object.fromEntries(["woff", "woff2", "ttf", "eot", "svg"].map((ext) => [`.${ext}`, "file"]));
await build({
  entryPoints: { app: join(here, "page", "app.jsx") },
  outdir: dist,
  bundle: true,
  minify: true,
  format: "iife",
  jsx: "automatic",
  loader: fonts,
  assetNames: "[name]-[hash]",
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
});
await copyFile(join(here, "page", "index.html"), join(dist, "index.html"));
