// POST /api/apps/surface – an app declares its surface (its tools, their scopes and risk levels). The call is
// signed with the app's surface secret (app-kit/surface.ts: HMAC over method, path, timestamp, nonce and body,
// 5 minutes, nonce once across all instances); the key id is the app's own client id. The declaration is what
// the security tab's verification later compares the app's real surface with.
import { oauthError, parseJsonObject } from '@/lib/http/errors';
import { parseSurfaceDocument } from '@/app-kit/surface';
import { recordAuditEvent } from '@/lib/audit/events';
import { isSupportedAppKitContract, SUPPORTED_APP_KIT_CONTRACT_VERSIONS } from '@/lib/clients/app-environment';
import { authenticateSignedAppCall, recordDeclaration } from '@/lib/clients/surface';
import { readCappedText } from '@/lib/http/body';
import { clientIpFromHeaders } from '@/lib/http/client-ip';
import { db, runtime } from '@/lib/runtime';

export const dynamic = 'force-dynamic';

const MAX_DECLARATION_BYTES = 256 * 1024;

const refuse = oauthError;

export async function POST(request: Request): Promise<Response> {
  const database = db();
  const { atRestKey } = runtime();
  const body = await readCappedText(request, MAX_DECLARATION_BYTES);
  if (body === undefined) return refuse(413, 'invalid_request', `the declaration is larger than ${MAX_DECLARATION_BYTES} bytes`);

  const signed = await authenticateSignedAppCall(database, atRestKey, request, body);
  if (!signed.ok) return refuse(401, 'invalid_signature', signed.description);
  const { app } = signed;

  const json = parseJsonObject(body);
  if (!json.ok) return refuse(400, 'invalid_request', json.description);
  const parsed = parseSurfaceDocument(json.value);
  if (!parsed.ok) return refuse(400, 'invalid_request', parsed.error);
  const { surface } = parsed;
  if (!isSupportedAppKitContract(surface.kit_contract_version)) {
    return refuse(400, 'unsupported_contract_version', `this Portico accepts app kit contracts ${SUPPORTED_APP_KIT_CONTRACT_VERSIONS.join(', ')}, the app declared ${surface.kit_contract_version}`);
  }
  if (surface.resource !== app.resource) return refuse(400, 'invalid_request', `the declared resource must be the app's own, ${app.resource}`);

  const declared = app;
  const declaredAt = await database.transaction(async (tx) => {
    const at = await recordDeclaration(tx, declared.appId, surface.tools, surface.kit_contract_version);
    await recordAuditEvent(tx, {
      orgId: declared.orgId,
      actor: { type: 'client', id: signed.clientId, label: declared.name, ip: clientIpFromHeaders(request.headers) },
      action: 'app.surface_declared',
      subject: { type: 'app', id: declared.appId, label: declared.name },
      appId: declared.appId,
      clientId: signed.clientId,
      details: { tools: surface.tools.length, contractVersion: surface.kit_contract_version, riskModelVersion: surface.risk_model_version },
    });
    return at;
  });
  return Response.json({ declared_at: declaredAt.toISOString(), tools: surface.tools.length }, { headers: { 'Cache-Control': 'no-store' } });
}
