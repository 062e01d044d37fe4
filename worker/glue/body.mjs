// The bounded read of a body: an outbound fetch's answer (a key directory, the
// reservation feed) or a POST's (fetch.mjs): the Worker never holds more of a body
// than it will use.

const EMPTY = new Uint8Array(0);

// readAtMost returns the body of res (a Response or a Request), or null when it is
// over max bytes: by Content-Length before reading, or as soon as the bytes read pass
// max. The rest of a refused body is cancelled. A body read in one chunk is returned
// as it came, without a copy.
export async function readAtMost(res, max) {
  if (Number(res.headers.get("content-length")) > max) {
    if (res.body) res.body.cancel().catch(() => {});
    return null;
  }
  if (!res.body) return EMPTY;
  const reader = res.body.getReader();
  const chunks = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.byteLength;
    if (n > max) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
}
