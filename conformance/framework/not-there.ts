// What an answer that says "this method is not here" looks like: HTTP 404, 405 or 501, JSON-RPC error -32601
// (method not found) or -32004 (method not supported), or an error of any code whose message says so of a method
// (ganache: -32700 "The method … does not exist/is not available"). One rule for the report's NOT SERVED
// (report/not-served.ts) and for the checks that must not wait on an answer no wait changes (head-served.ts).
import { isObject } from '../../core/hex.ts';

const NOT_THERE_HTTP = new Set([404, 405, 501]);
const NOT_THERE_CODES = new Set([-32601, -32004]);
/** An error message that says a method is missing, whatever its code. */
const NOT_THERE_MESSAGE = /\bmethod\b.{0,80}?\b(does not exist|doesn't exist|not (supported|available|found|implemented|enabled|allowed)|unsupported|unavailable|disabled)\b|\b(unknown|unsupported|unavailable|disabled) method\b/i;

/** What one answer (its HTTP status, its parsed body) said, when it says the method is not there; undefined otherwise. */
export function notThere(httpStatus: number | undefined, body: unknown): string | undefined {
  if (httpStatus !== undefined && NOT_THERE_HTTP.has(httpStatus)) return `HTTP ${httpStatus}`;
  const error = isObject(body) ? body['error'] : undefined;
  if (!isObject(error)) return undefined;
  const { code, message } = error;
  if ((typeof code === 'number' && NOT_THERE_CODES.has(code)) || (typeof message === 'string' && NOT_THERE_MESSAGE.test(message))) {
    return `error ${String(code)}: ${typeof message === 'string' ? message.slice(0, 120) : '(no message)'}`;
  }
  return undefined;
}
