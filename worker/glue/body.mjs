// The bounded read of an outbound fetch's answer (a key directory, the reservation feed):
// the Worker never holds more of a body than it will use.

// readAtMost returns the answer's body, or null when it is over max bytes: by
// Content-Length before reading, or as soon as the bytes read pass max. The rest of a
// refused body is cancelled.
export async function readAtMost(res, max) {
  if (Number(res.headers.get("content-length")) > max) {
    if (res.body) res.body.cancel().catch(() => {});
    return null;
  }
  if (!res.body) return new Uint8Array(0);
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
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.byteLength; }
  return out;
}
