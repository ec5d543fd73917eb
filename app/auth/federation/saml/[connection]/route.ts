// GET /auth/federation/saml/<connection> – Portico's service provider metadata for one SAML connection (its entity ID
// is this URL), for the identity provider's admin to import by URL; `?download=1` (the console's download button)
// answers it as a file to save.
import { findConnection } from '@/lib/identity/connections';
import { samlMetadata } from '@/lib/identity/federation/saml';
import { db } from '@/lib/runtime';
import { federationDeps } from '../../_lib/deps';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, { params }: { params: Promise<{ connection: string }> }): Promise<Response> {
  const connection = await findConnection(db(), (await params).connection);
  if (!connection || connection.kind !== 'saml') return new Response('Not found', { status: 404, headers: { 'Content-Type': 'text/plain' } });
  const headers: Record<string, string> = { 'Content-Type': 'application/samlmetadata+xml', 'Cache-Control': 'no-store' };
  // The file name is Portico's and the connection's id only: a connection's name is text typed by a person.
  if (new URL(request.url).searchParams.has('download')) headers['Content-Disposition'] = `attachment; filename="portico-sp-metadata-${connection.id}.xml"`;
  return new Response(samlMetadata(federationDeps(), connection), { headers });
}
