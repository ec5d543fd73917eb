/**
 * A token with one character changed where a change always changes what it says: the first character of its last
 * dot-separated part (a JWT's signature; an opaque token's first character). Not the last character: a base64url
 * string's last character carries unused bits, so some changes there decode to the very same bytes, and the
 * "tampered" token still verifies (about one run in a thousand, or one in 64 for "replace the last character by x").
 */
export function tamperedToken(token: string): string {
  const at = token.lastIndexOf('.') + 1;
  return `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
}
