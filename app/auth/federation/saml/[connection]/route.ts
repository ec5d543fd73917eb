// GET /auth/federation/saml/<connection> – Portico's service provider metadata for one SAML connection (its entity ID
// is this URL), for the identity provider's admin to import.
import { findConnection } from '@/lib/identity/connections';
import { samlMetadata } from '@/lib/identity/saml';
import { db } from '@/lib/runtime';
import { federationDeps } from '../../_lib/deps';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: { params: Promise<{ connection: string }> }): Promise<Response> {
  const connection = await findConnection(db(), (await params).connection);
  if (!connection || connection.kind !== 'saml') return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
  return new Response(samlMetadata(federationDeps(), connection), { headers: { 'Content-Type': 'application/samlmetadata+xml', 'Cache-Control': 'no-store' } });
}
