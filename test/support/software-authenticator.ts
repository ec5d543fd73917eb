// A software authenticator for unit tests of passkey registration: it answers a registration ceremony the way a
// platform authenticator does (attestation "none", an ES256 key, user present and verified), so the server's real
// verification (@simplewebauthn/server) runs against it, and later answers assertions with the key it made. The
// browser-level behaviour is covered by the e2e tests with Chromium's virtual authenticator; this one only spares unit
// tests a browser.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** The private keys this authenticator made, by credential id, with each one's signature counter. */
const credentials = new Map<string, { privateKey: KeyObject; counter: number }>();

/** Answers registration options for `origin` (its host is the RP ID the options name). */
export function registrationResponse(options: PublicKeyCredentialCreationOptionsJSON, origin: string): RegistrationResponseJSON {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
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
  credentials.set(b64url(credentialId), { privateKey, counter: 0 });
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

/**
 * Answers assertion options for `origin` with a credential this authenticator registered (the first one the options
 * allow, or `credentialId`): user present and verified, the counter one higher, an ES256 signature over
 * authenticatorData ‖ SHA-256(clientDataJSON) (WebAuthn Level 3 §6.3.3).
 */
export function assertionResponse(options: PublicKeyCredentialRequestOptionsJSON, origin: string, credentialId?: string): AuthenticationResponseJSON {
  const id = credentialId ?? options.allowCredentials?.find((allowed) => credentials.has(allowed.id))?.id;
  const credential = id === undefined ? undefined : credentials.get(id);
  if (!id || !credential) throw new Error('no credential of this authenticator is allowed by these options');
  credential.counter += 1;
  const rpIdHash = createHash('sha256').update(options.rpId ?? new URL(origin).hostname).digest();
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(credential.counter);
  // Flags: user present (0x01), user verified (0x04).
  const authenticatorData = Buffer.concat([rpIdHash, Buffer.from([0x05]), counter]);
  const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
  const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]), credential.privateKey);
  return {
    id,
    rawId: id,
    type: 'public-key',
    response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authenticatorData), signature: b64url(signature) },
    clientExtensionResults: {},
  };
}
