// A small UTF-8 decoder: the isolate has no TextDecoder. Strings in the assets are short ("广东|深圳"),
// decoded once per table load or once per phone.dat record, so clarity beats speed here.

const REPLACEMENT = 0xfffd;

export function decodeUtf8(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const units: number[] = [];
  let i = start;
  while (i < end) {
    const b0 = bytes[i]!;
    let cp: number;
    let len: number;
    if (b0 < 0x80) {
      cp = b0;
      len = 1;
    } else if (b0 >= 0xc2 && b0 < 0xe0) {
      cp = b0 & 0x1f;
      len = 2;
    } else if (b0 >= 0xe0 && b0 < 0xf0) {
      cp = b0 & 0x0f;
      len = 3;
    } else if (b0 >= 0xf0 && b0 < 0xf5) {
      cp = b0 & 0x07;
      len = 4;
    } else {
      units.push(REPLACEMENT);
      i += 1;
      continue;
    }
    if (i + len > end || !continuations(bytes, i + 1, i + len)) {
      units.push(REPLACEMENT);
      i += 1;
      continue;
    }
    for (let k = 1; k < len; k++) cp = (cp << 6) | (bytes[i + k]! & 0x3f);
    // Overlong forms, surrogates and values past U+10FFFF are not valid UTF-8.
    const min = len === 3 ? 0x800 : len === 4 ? 0x10000 : 0;
    if (cp < min || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
      units.push(REPLACEMENT);
      i += 1;
      continue;
    }
    if (cp > 0xffff) {
      cp -= 0x10000;
      units.push(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else {
      units.push(cp);
    }
    i += len;
  }
  let out = '';
  // Chunked so a long string never exceeds the engine's argument limit.
  for (let k = 0; k < units.length; k += 4096) out += String.fromCharCode(...units.slice(k, k + 4096));
  return out;
}

function continuations(bytes: Uint8Array, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if ((bytes[k]! & 0xc0) !== 0x80) return false;
  return true;
}
