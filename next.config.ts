import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Bundled by Turbopack these fail at run time (oidc-provider, koa), carry native code (argon2), or would copy
  // PGlite's wasm into public static media; esbuild (which bundles the MCP Apps view at run time) is a native
  // binary. They are loaded from node_modules instead.
  serverExternalPackages: ['oidc-provider', 'koa', '@electric-sql/pglite', '@node-rs/argon2', 'postgres', 'esbuild'],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
