// Zip archives in and out (PKWARE's APPNOTE), on the browser's own deflate: CompressionStream and
// DecompressionStream("deflate-raw") do the (de)compression natively and off the page's thread, so
// only the container (headers, central directory, CRC-32) is ours and no library is shipped.
// Reading trusts nothing: every offset is bounds-checked, every entry's size and CRC-32 are
// verified, and an entry that inflates past its declared size is stopped there (a zip bomb).

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
const END64 = 0x06064b50;
const END64_LOCATOR = 0x07064b50;
const ZIP64_EXTRA = 0x0001;
const UTF8_NAMES = 0x0800;
const STORED = 0;
const DEFLATED = 8;

/** A zip that cannot be read: the message says what is wrong with it. */
export class ZipError extends Error {}

/**
 * The entries of an archive (`bytes`, a Uint8Array), from its central directory; nothing is
 * inflated yet. Each is { name, size, compressedSize, method, encrypted, crc, localOffset }.
 * Directory entries (a name ending in "/") are left out: directories come with their files.
 */
export function listZip(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEnd(view);
  let count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  // The largest 16- and 32-bit values say "see the ZIP64 record", when there is one: a zip of
  // exactly 65,535 entries (which makeZip writes) has none, and means the count as it is.
  const end64 = count === 0xffff || offset === 0xffffffff ? readEnd64(view, end) : null;
  if (end64) ({ count, offset } = end64);
  // Bytes in front of the archive (a self-extracting stub: `cat stub a.zip`) move every offset by
  // as many; without ZIP64 records, the central directory ends where the end record starts.
  const shift = end64 ? 0 : Math.max(0, end - view.getUint32(end + 12, true) - offset);
  const entries = [];
  let at = offset + shift;
  for (let i = 0; i < count; i++) {
    need(view, at, 46, "the central directory");
    if (view.getUint32(at, true) !== CENTRAL) throw new ZipError(`it is corrupt: central directory entry ${i + 1} of ${count} is damaged`);
    const flags = view.getUint16(at + 8, true);
    const [nameLength, extraLength, commentLength] = [28, 30, 32].map((field) => view.getUint16(at + field, true));
    need(view, at + 46, nameLength + extraLength, "the central directory");
    const name = decodeName(bytes.subarray(at + 46, at + 46 + nameLength), flags);
    const entry = {
      name,
      method: view.getUint16(at + 10, true),
      encrypted: (flags & 1) !== 0,
      crc: view.getUint32(at + 16, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    };
    readZip64Extra(view, at + 46 + nameLength, extraLength, entry);
    entry.localOffset += shift;
    if (!name.endsWith("/")) entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const UTF8 = new TextDecoder();
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });
// Code page 437's upper half, what an entry name's bytes 0x80 to 0xff stand for without flag 11.
const CP437 = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";

/**
 * An entry's name: UTF-8 when flag 11 says so; otherwise UTF-8 too when the bytes are valid UTF-8
 * (most tools write it without the flag), and code page 437 (the format's own, which Windows'
 * compressed folders write) when they are not, so that two names never both become U+FFFD.
 */
function decodeName(bytes, flags) {
  if (flags & UTF8_NAMES) return UTF8.decode(bytes);
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return Array.from(bytes, (byte) => (byte < 0x80 ? String.fromCharCode(byte) : CP437[byte - 0x80])).join("");
  }
}

/** Why `name` (an entry's) cannot be a path inside the workspace, or null when it can. */
export function unsafeName(name) {
  if (name.includes("\\")) return "it contains a backslash";
  if (name.startsWith("/")) return "it is an absolute path";
  if (/^[A-Za-z]:/.test(name)) return "it starts with a drive letter";
  if (name.split("/").includes("..")) return "it climbs out of the folder with ..";
  if (/[\0-\x1f]/.test(name)) return "it contains a control character";
  return null;
}

/** An entry's content (a Uint8Array), inflated and checked against its size and CRC-32. */
export async function readEntry(bytes, entry) {
  const { name } = entry;
  if (entry.encrypted) throw new ZipError(`${name} is encrypted, which the playground does not read`);
  if (entry.method !== STORED && entry.method !== DEFLATED) {
    throw new ZipError(`${name} is compressed with method ${entry.method}; only stored (0) and deflate (8) are read`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  need(view, entry.localOffset, 30, name);
  if (view.getUint32(entry.localOffset, true) !== LOCAL) throw new ZipError(`it is corrupt: the local header of ${name} is damaged`);
  const start = entry.localOffset + 30 + view.getUint16(entry.localOffset + 26, true) + view.getUint16(entry.localOffset + 28, true);
  need(view, start, entry.compressedSize, name);
  const data = bytes.subarray(start, start + entry.compressedSize);
  const content = entry.method === STORED ? data.slice() : await inflate(data, entry.size, name);
  if (content.length !== entry.size) {
    throw new ZipError(`it is corrupt: ${name} holds ${content.length} bytes where its header says ${entry.size}`);
  }
  if (crc32(content) !== entry.crc) throw new ZipError(`it is corrupt: ${name} fails its CRC-32 check`);
  return content;
}

/** A zip archive (a Blob) of `files`, [{ name, bytes }], deflated where that makes them smaller. */
export async function makeZip(files, date = new Date()) {
  if (files.length > 0xffff) throw new ZipError(`${files.length} files are more than a zip without ZIP64 holds (65535)`);
  const time = ((date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1)) & 0xffff;
  const day = (((Math.max(date.getFullYear(), 1980) - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate()) & 0xffff;
  const parts = [];
  const central = [];
  let offset = 0;
  for (const { name, bytes } of files) {
    const encodedName = new TextEncoder().encode(name);
    const deflated = await deflate(bytes);
    const [method, data] = deflated.length < bytes.length ? [DEFLATED, deflated] : [STORED, bytes];
    // The fields local and central headers share, from "version needed" to the name's length.
    const common = header(26, (v) => {
      v.setUint16(0, 20, true);
      v.setUint16(2, UTF8_NAMES, true);
      v.setUint16(4, method, true);
      v.setUint16(6, time, true);
      v.setUint16(8, day, true);
      v.setUint32(10, crc32(bytes), true);
      v.setUint32(14, data.length, true);
      v.setUint32(18, bytes.length, true);
      v.setUint16(22, encodedName.length, true);
    });
    parts.push(header(4, (v) => v.setUint32(0, LOCAL, true)), common, encodedName, data);
    central.push(
      header(6, (v) => {
        v.setUint32(0, CENTRAL, true);
        v.setUint16(4, (3 << 8) | 20, true); // made by Unix, spec 2.0: the attributes below are Unix modes
      }),
      common,
      // Comment length, disk, internal attributes, external ones (a plain rw-r--r-- file), local header's offset.
      header(14, (v) => {
        v.setUint32(6, 0o100644 << 16, true);
        v.setUint32(10, offset, true);
      }),
      encodedName,
    );
    offset += 30 + encodedName.length + data.length;
    if (offset > 0xffffffff) throw new ZipError("the files are more than a zip without ZIP64 holds (4 GB)");
  }
  const centralSize = central.reduce((sum, part) => sum + part.length, 0);
  const end = header(22, (v) => {
    v.setUint32(0, END, true);
    v.setUint16(8, files.length, true);
    v.setUint16(10, files.length, true);
    v.setUint32(12, centralSize, true);
    v.setUint32(16, offset, true);
  });
  return new Blob([...parts, ...central, end], { type: "application/zip" });
}

function header(length, fill) {
  const bytes = new Uint8Array(length);
  fill(new DataView(bytes.buffer));
  return bytes;
}

/** The end-of-central-directory record: the last one, within the 64 KB a comment may take. */
function findEnd(view) {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - 0xffff; at--) {
    if (view.getUint32(at, true) === END) return at;
  }
  throw new ZipError("it is not a zip archive, or it is truncated (its end-of-archive record is missing)");
}

/** The entry count and central directory's offset in the ZIP64 end record, or null when there is none. */
function readEnd64(view, end) {
  const locator = end - 20;
  if (locator < 0 || view.getUint32(locator, true) !== END64_LOCATOR) return null;
  const at = uint64(view, locator + 8, "the ZIP64 end record");
  need(view, at, 56, "the ZIP64 end record");
  if (view.getUint32(at, true) !== END64) throw new ZipError("it is corrupt: its ZIP64 end record is damaged");
  return { count: uint64(view, at + 32, "the entry count"), offset: uint64(view, at + 48, "the central directory's offset") };
}

/** ZIP64 puts the sizes and offset that do not fit 32 bits in an extra field, in this order. */
function readZip64Extra(view, at, length, entry) {
  for (let end = at + length; at + 4 <= end; at += 4 + view.getUint16(at + 2, true)) {
    if (view.getUint16(at, true) !== ZIP64_EXTRA) continue;
    let field = at + 4;
    for (const key of ["size", "compressedSize", "localOffset"]) {
      if (entry[key] !== 0xffffffff) continue;
      need(view, field, 8, entry.name);
      entry[key] = uint64(view, field, entry.name);
      field += 8;
    }
  }
}

function uint64(view, at, what) {
  const value = view.getBigUint64(at, true);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new ZipError(`it is corrupt: ${what} is out of range`);
  return Number(value);
}

function need(view, at, length, what) {
  if (at < 0 || at + length > view.byteLength) throw new ZipError(`it is truncated or corrupt: ${what} runs past the end of the file`);
}

async function inflate(data, limit, name) {
  const reader = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const chunks = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > limit) {
        reader.cancel().catch(() => {});
        throw new ZipError(`it is corrupt: ${name} inflates to more than the ${limit} bytes its header says`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ZipError) throw error;
    throw new ZipError(`it is corrupt: ${name} cannot be inflated (${error.message})`);
  }
  return concat(chunks, total);
}

async function deflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function concat(chunks, total) {
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

let crcTable = null;

function crc32(bytes) {
  crcTable ??= Uint32Array.from({ length: 256 }, (_, n) => {
    for (let k = 0; k < 8; k++) n = n & 1 ? 0xedb88320 ^ (n >>> 1) : n >>> 1;
    return n;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
