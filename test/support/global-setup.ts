// Once per vitest run, before the workers start: the loopback TLS certificate that test servers (the webhook
// receiver) present, trusted by the workers through NODE_EXTRA_CA_CERTS, which Node reads only when a process
// starts — so it is set here, in the process that forks them.
import { loopbackTlsFiles } from '../../e2e/support/tls';

export default function setup(): void {
  process.env.NODE_EXTRA_CA_CERTS = loopbackTlsFiles({ regenerate: true }).certPath;
}
