import type * as zlibModule from 'node:zlib';
import type * as QRCode from 'qrcode';
import { lazy } from '../files/lazy.js';

const zlib = lazy<typeof zlibModule>('node:zlib');
// Only the QR matrix: the package's main entry also loads renderers this never uses.
const qrcode = lazy<typeof QRCode>('qrcode/lib/core/qrcode');

/** Pixels per QR module, and the quiet zone in modules (the standard asks for 4). */
const SCALE = 4;
const MARGIN = 4;

/** One byte-mode segment and a fixed mask pattern: every mask is a valid QR code (tests decode the image). */
const MASK_PATTERN = 0;

/** A PNG image (1-bit grayscale) of the QR code for `text`. */
export function qrPng(text: string): Buffer {
  const { modules } = qrcode().create([{ data: Buffer.from(text, 'utf8'), mode: 'byte' }], {
    errorCorrectionLevel: 'M',
    maskPattern: MASK_PATTERN,
  });
  const n = modules.size;
  const side = (n + 2 * MARGIN) * SCALE;
  const rowBytes = Math.ceil(side / 8);
  const stride = rowBytes + 1; // each row starts with its filter byte (0: none)
  const raw = Buffer.alloc(stride * side, 0xff);
  for (let y = 0; y < side; y++) raw[y * stride] = 0;
  for (let my = 0; my < n; my++) {
    for (let mx = 0; mx < n; mx++) {
      if (!modules.data[my * n + mx]) continue;
      for (let dy = 0; dy < SCALE; dy++) {
        const row = ((my + MARGIN) * SCALE + dy) * stride + 1;
        for (let dx = 0; dx < SCALE; dx++) {
          const x = (mx + MARGIN) * SCALE + dx;
          raw[row + (x >> 3)] &= ~(0x80 >> (x & 7));
        }
      }
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // grayscale
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib().deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The image as a `data:` URL, as the vendor's examples carry it in `challengeQRcode`. */
export function qrDataUrl(text: string): string {
  return `data:image/png;base64,${qrPng(text).toString('base64')}`;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(zlib().crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
