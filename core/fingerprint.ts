// The reply fingerprint of core/reply.ts, as Node computes it (k6 hashes the same text with k6/crypto).
import { createHash } from 'node:crypto';
import { replyText } from './reply.ts';

export function replyFingerprint(body: string, id: number): string | undefined {
  const text = replyText(body, id);
  return text === undefined ? undefined : createHash('sha256').update(text, 'utf8').digest('hex');
}
