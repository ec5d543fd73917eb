// Reading request bodies with a size cap, so that a client cannot make Portico buffer more than it allows.

/** A stream read whole, or undefined as soon as it goes past `limit` bytes (the rest is not read). */
export async function readStreamCapped(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer | undefined> {
  if (!stream) return Buffer.alloc(0);
  const reader = stream.getReader();
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
  return Buffer.concat(chunks);
}

/** The body as text, or undefined when it is larger than `limit` bytes (declared or actual). */
export async function readCappedText(request: Request, limit: number): Promise<string | undefined> {
  if (Number(request.headers.get('content-length') ?? '0') > limit) return undefined;
  return (await readStreamCapped(request.body, limit))?.toString('utf8');
}

/** An HTML form's fields (application/x-www-form-urlencoded), read with a size cap; undefined otherwise. */
export async function readCappedForm(request: Request, limit: number): Promise<URLSearchParams | undefined> {
  if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) return undefined;
  const text = await readCappedText(request, limit);
  return text === undefined ? undefined : new URLSearchParams(text);
}
