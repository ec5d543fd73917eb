// Once per vitest run, before the workers start: a loopback TLS certificate of this run's own (a folder of its own,
// so that a vitest run never replaces the certificate an end-to-end run's server trusts), presented by test servers
// (the webhook receiver) and trusted by the workers through NODE_EXTRA_CA_CERTS, which Node reads only when a process
// starts — so it is set here, in the process that forks them. The folder reaches the workers through vitest's provide.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { loopbackTlsFiles } from '../../e2e/support/tls';

declare module 'vitest' {
  export interface ProvidedContext {
    tlsDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'portico-vitest-tls-'));
  process.env.NODE_EXTRA_CA_CERTS = loopbackTlsFiles({ regenerate: true, dir }).certPath;
  project.provide('tlsDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
