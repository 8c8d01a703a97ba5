// The hashes of the corpus as Node computes them: the reply fingerprint of core/reply.ts and the sha256 that
// load/shared/answer.ts digests with (k6 hashes the same texts with k6/crypto).
import { createHash } from 'node:crypto';
import { replyText } from '../reply.ts';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function replyFingerprint(body: string, id: number): string | undefined {
  const text = replyText(body, id);
  return text === undefined ? undefined : sha256Hex(text);
}
