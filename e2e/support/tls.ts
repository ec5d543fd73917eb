// A self-signed certificate for https://localhost in tests: client ID metadata documents must be https URLs, so
// the test serves one on loopback, and the Portico under test trusts this certificate (NODE_EXTRA_CA_CERTS).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TlsFiles {
  certPath: string;
  keyPath: string;
}

/** `dir`: where the files live (the e2e run's shared folder unless a run of its own gives another). */
export function loopbackTlsFiles(options: { regenerate?: boolean; dir?: string } = {}): TlsFiles {
  const dir = options.dir ?? path.join(tmpdir(), 'portico-e2e-tls');
  const files = { certPath: path.join(dir, 'cert.pem'), keyPath: path.join(dir, 'key.pem') };
  if (!options.regenerate && existsSync(files.certPath) && existsSync(files.keyPath)) return files;
  mkdirSync(dir, { recursive: true });
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout', files.keyPath, '-out', files.certPath,
  ], { stdio: 'ignore' });
  return files;
}
