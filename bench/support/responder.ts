// A native-speed JSON-RPC responder on 127.0.0.1, run as its own process (forked by startResponder) so
// it never shares an event loop with the bench driver. It echoes each call's id, as real endpoints do
// (the harness's verdict cache relies on nothing else). A call of METHOD gets the canned transaction,
// with the hash it asked for (so each corpus entry has an answer of its own, of one size), after the
// delay its schedule gives, and is recorded: its time from arrival to answer by the responder's own
// clock (the ground truth). Any other call (the harness's eth_blockNumber head sampler) is answered at
// once and left out, so the schedule and the truth cover exactly the measured calls. Calls at TEST_DATA.path
// (chainbench's test data, read before its test) get the chain id, the head and blocks (endpoint.ts).
import { createServer } from 'node:http';
import { delayMs, METHOD, type Mode, MODES, TEST_DATA, testDataAnswer, TX, txAnswer } from './endpoint.ts';

/** An answer to id 0 as its bytes around the id, and for the transaction, around its hash. */
const parts = (text: string): Buffer[] => text.split(/(?<="id":)0|(?<="hash":")0x[0-9a-f]{64}/).map((part) => Buffer.from(part));
const TX_BODY = parts(txAnswer(0, TX.hash));
const HEAD_BODY = parts(JSON.stringify({ jsonrpc: '2.0', id: 0, result: '0x9' }));
const ID = /"id":(\d{1,15})[,}]/;
const HASH = /0x[0-9a-f]{64}/;

const mode = process.argv[2] as Mode;
if (!MODES.includes(mode) || !process.send) throw new Error(`usage: fork responder.ts <${MODES.join('|')}> (with an IPC channel)`);
const record = mode !== 'fast'; // the fast mode serves tens of thousands of calls a second: it only counts
const durations: number[] = [];
let served = 0;
let first: number | undefined;

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const at = performance.now();
  let body = '';
  req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    const fill = [Buffer.from(ID.exec(body)?.[1] ?? 'null'), Buffer.from(HASH.exec(body)?.[0] ?? TX.hash)];
    const send = (parts: Buffer[], done?: () => void) => {
      const payload = Buffer.concat(parts.flatMap((part, i) => (i < parts.length - 1 ? [part, fill[i] as Buffer] : [part])));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': payload.length }).end(payload, done);
    };
    if (req.url === TEST_DATA.path) return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(testDataAnswer(parse(body)));
    if (!body.includes(METHOD)) return void send(HEAD_BODY);
    first ??= at;
    const n = served++;
    const reply = () => send(TX_BODY, record ? () => (durations[n] = performance.now() - at) : undefined);
    const delay = delayMs(mode, n, at - first);
    if (delay > 0) setTimeout(reply, at + delay - performance.now());
    else reply();
  });
});

/** A JSON-RPC call's fields, or none when the body is not one. */
function parse(body: string): { id?: unknown; method?: unknown; params?: unknown } {
  try {
    const call: unknown = JSON.parse(body);
    return typeof call === 'object' && call !== null ? call : {};
  } catch {
    return {};
  }
}

// The driver asks for what was served, then disconnects, which ends this process.
process.on('message', () => process.send?.({ served, durations }));
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
