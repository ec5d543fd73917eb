import type { NextConfig } from 'next';
import { API_CONTENT_SECURITY_POLICY, securityHeaders } from './lib/security/headers';

const nextConfig: NextConfig = {
  // Bundled by Turbopack these fail at run time (oidc-provider, koa), carry native code (argon2), or would copy
  // PGlite's wasm into public static media; esbuild (which bundles the MCP Apps view at run time) is a native
  // binary. They are loaded from node_modules instead.
  serverExternalPackages: ['oidc-provider', 'koa', '@electric-sql/pglite', '@node-rs/argon2', 'postgres', 'esbuild'],
  poweredByHeader: false,
  // The JSON API (/api/*) skips proxy.ts; its responses carry the shared security headers from here. No HSTS here:
  // it depends on the issuer's scheme, which only the running server knows (pages and the provider send it).
  async headers() {
    return [{ source: '/api/:path*', headers: Object.entries(securityHeaders({ https: false, contentSecurityPolicy: API_CONTENT_SECURITY_POLICY })).map(([key, value]) => ({ key, value })) }];
  },
  reactStrictMode: true,
};

export default nextConfig;
