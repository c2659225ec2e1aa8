// Benchmark-only ES module stand-in for the CommonJS package `base64-js`, which js-tiktoken imports
// by its bare name. Why: the benchmark page loads packages straight from node_modules with an import
// map and no bundler, and a CommonJS file cannot be imported as a module. js-tiktoken only calls
// `toByteArray` (once per rank while it builds its tables); `fromByteArray` and `byteLength` complete
// the package's interface. Built on the browser's atob/btoa.

/** Bytes of a base64 string (standard alphabet; URL-safe letters are accepted as base64-js does). */
export function toByteArray(b64) {
  const binary = atob(b64.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 text of a byte array. */
export function fromByteArray(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Decoded length of a base64 string, without decoding it. */
export function byteLength(b64) {
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return (b64.length * 3) / 4 - padding;
}

export default { toByteArray, fromByteArray, byteLength };
