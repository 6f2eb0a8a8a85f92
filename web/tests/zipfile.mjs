// Zip archives on Node's zlib, for the tests: written here (with any entry name, so hostile ones
// too) and read here, independently of the playground's own zip code.

import { crc32, deflateRawSync, inflateRawSync } from "node:zlib";

/**
 * A zip of `entries`, [{ name, bytes, utf8 }] (name and bytes: a Buffer or a string), each
 * deflated; `utf8: false` leaves flag 11 (names in UTF-8) clear.
 */
export function zipOf(entries) {
  const local = [];
  const central = [];
  let offset = 0;
  for (const { name, bytes: content, utf8 = true } of entries) {
    const bytes = Buffer.from(content);
    const data = deflateRawSync(bytes);
    const fileName = Buffer.from(name);
    const fields = Buffer.alloc(26);
    fields.writeUInt16LE(20, 0); // version needed
    fields.writeUInt16LE(utf8 ? 0x0800 : 0, 2); // UTF-8 names
    fields.writeUInt16LE(8, 4); // deflate
    fields.writeUInt32LE(crc32(bytes), 10);
    fields.writeUInt32LE(data.length, 14);
    fields.writeUInt32LE(bytes.length, 18);
    fields.writeUInt16LE(fileName.length, 22);
    local.push(u32(0x04034b50), fields, fileName, data);
    const tail = Buffer.alloc(14);
    tail.writeUInt32LE(offset, 10);
    central.push(u32(0x02014b50), Buffer.from([20, 0]), fields, tail, fileName);
    offset += 30 + fileName.length + data.length;
  }
  const centralBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, centralBytes, end]);
}

/** The files of a zip, name -> Buffer, each checked against its CRC-32. */
export function unzip(zip) {
  const end = zip.lastIndexOf(u32(0x06054b50));
  if (end < 0) throw new Error("no end of central directory");
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const files = new Map();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`central entry ${i} is damaged`);
    const method = zip.readUInt16LE(at + 10);
    const [crc, size, compressed] = [16, 24, 20].map((field) => zip.readUInt32LE(at + field));
    const [nameLength, extraLength, commentLength] = [28, 30, 32].map((field) => zip.readUInt16LE(at + field));
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString();
    const localAt = zip.readUInt32LE(at + 42);
    const start = localAt + 30 + zip.readUInt16LE(localAt + 26) + zip.readUInt16LE(localAt + 28);
    const data = zip.subarray(start, start + compressed);
    const bytes = method === 8 ? inflateRawSync(data) : Buffer.from(data);
    if (bytes.length !== size || crc32(bytes) !== crc) throw new Error(`${name}: size or CRC-32 does not match`);
    files.set(name, bytes);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

function u32(value) {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value);
  return b;
}
