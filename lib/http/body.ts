// Reading request bodies with a size cap, so that a client cannot make Portico buffer more than it allows.

/** The body as text, or undefined when it is larger than `limit` bytes (declared or actual). */
export async function readCappedText(request: Request, limit: number): Promise<string | undefined> {
  if (Number(request.headers.get('content-length') ?? '0') > limit) return undefined;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** An HTML form's fields (application/x-www-form-urlencoded), read with a size cap; undefined otherwise. */
export async function readCappedForm(request: Request, limit: number): Promise<URLSearchParams | undefined> {
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) return undefined;
  const text = await readCappedText(request, limit);
  return text === undefined ? undefined : new URLSearchParams(text);
}
