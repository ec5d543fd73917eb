// A software authenticator for unit tests of passkey registration: it answers a registration ceremony the way a
// platform authenticator does (attestation "none", an ES256 key, user present and verified), so the server's real
// verification (@simplewebauthn/server) runs against it. The browser-level behaviour is covered by the e2e tests with
// Chromium's virtual authenticator; this one only spares unit tests a browser.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** Answers registration options for `origin` (its host is the RP ID the options name). */
export function registrationResponse(options: PublicKeyCredentialCreationOptionsJSON, origin: string): RegistrationResponseJSON {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  // COSE_Key (RFC 9053): kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
  const coseKey = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
  const credentialId = randomBytes(16);
  const rpIdHash = createHash('sha256').update(options.rp.id ?? new URL(origin).hostname).digest();
  const lengthBytes = Buffer.alloc(2);
  lengthBytes.writeUInt16BE(credentialId.length);
  // Flags: user present (0x01), user verified (0x04), attested credential data (0x40).
  const authData = Buffer.concat([rpIdHash, Buffer.from([0x45]), Buffer.alloc(4), Buffer.alloc(16), lengthBytes, credentialId, Buffer.from(coseKey)]);
  const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never);
  const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }));
  return {
    id: b64url(credentialId),
    rawId: b64url(credentialId),
    type: 'public-key',
    response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
    clientExtensionResults: {},
  };
}
