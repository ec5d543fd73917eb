// A real DNS server on a loopback UDP port, answering TXT questions from a table the test fills (RFC 1035 §4):
// Portico's domain checks resolve through node:dns against it exactly as they would against a company's DNS. Every
// other question, and a name not in the table, is answered NXDOMAIN.
import { createSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';

export interface DnsServer {
  /** host:port, for PORTICO_DNS_SERVERS or txtResolver(). */
  address: string;
  /** The TXT records of a name (lower case, no trailing dot); each record one string. */
  txt: Map<string, string[]>;
  close(): Promise<void>;
}

const TYPE_TXT = 16;

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let at = offset;
  for (;;) {
    const length = message[at]!;
    if (length === 0) return { name: labels.join('.').toLowerCase(), end: at + 1 };
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += 1 + length;
  }
}

function txtData(record: string): Buffer {
  // A character-string holds at most 255 bytes: a longer record goes in several.
  const bytes = Buffer.from(record, 'utf8');
  const parts: Buffer[] = [];
  for (let start = 0; start < bytes.length || start === 0; start += 255) {
    const chunk = bytes.subarray(start, start + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
    if (bytes.length === 0) break;
  }
  return Buffer.concat(parts);
}

export async function startDnsServer(): Promise<DnsServer> {
  const txt = new Map<string, string[]>();
  const socket = createSocket('udp4');
  socket.on('message', (query, remote) => {
    if (query.length < 12) return;
    const { name, end } = readName(query, 12);
    const type = query.readUInt16BE(end);
    const question = query.subarray(12, end + 4);
    const records = type === TYPE_TXT ? txt.get(name) : undefined;
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    // QR, the query's RD, RA; rcode 0 (answers) or 3 (NXDOMAIN).
    header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | (records ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records?.length ?? 0, 6);
    const answers = (records ?? []).map((record) => {
      const data = txtData(record);
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0); // the question's name
      fixed.writeUInt16BE(TYPE_TXT, 2);
      fixed.writeUInt16BE(1, 4); // IN
      fixed.writeUInt32BE(60, 6);
      fixed.writeUInt16BE(data.length, 10);
      return Buffer.concat([fixed, data]);
    });
    socket.send(Buffer.concat([header, question, ...answers]), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    txt,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
