// The script of an MCP Apps view (browser code under lib/mcp/*-view/view.ts), bundled once per process with esbuild
// and inlined: a host renders the resource's text as the whole document, so nothing is fetched.
import path from 'node:path';

const bundles = new Map<string, Promise<string>>();

async function bundle(entry: string): Promise<string> {
  const { build } = await import('esbuild');
  // From the working directory, not import.meta.url: Next.js bundles this module elsewhere. (The comment inside tells
  // Turbopack not to trace the whole project into the build for this one path; it warned at every build.)
  const result = await build({ entryPoints: [path.join(/* turbopackIgnore: true */ process.cwd(), entry)], bundle: true, format: 'iife', platform: 'browser', target: 'es2022', minify: true, write: false, logLevel: 'silent' });
  // Inlined in a <script>: a "</script" inside the bundle would end it early.
  return result.outputFiles[0]!.text.replace(/<\/(script)/gi, '<\\/$1');
}

/** The bundled script of one view (a failed build is retried on the next request, not cached). */
export function viewScript(entry: string): Promise<string> {
  let pending = bundles.get(entry);
  if (!pending) {
    pending = bundle(entry).catch((error: unknown) => {
      bundles.delete(entry);
      throw error;
    });
    bundles.set(entry, pending);
  }
  return pending;
}

export const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** Text for an element's content (the catalogs' words are text, never markup). */
export const escapeHtml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The styles every view shares (each adds its own after them). */
export const VIEW_BASE_STYLE = `body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#0f172a;background:#fff}
main{padding:14px;max-width:720px}
h1{font-size:16px;margin:0 0 6px}
dl{display:grid;grid-template-columns:7rem 1fr;gap:2px 10px;margin:8px 0}
dt{color:#64748b}
input{width:100%;box-sizing:border-box;font:inherit;padding:5px 7px;border:1px solid #cbd5e1;border-radius:6px}
button{font:inherit;padding:5px 12px;border-radius:6px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;cursor:pointer;margin-top:6px}`;
