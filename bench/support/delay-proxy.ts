// A proxy in front of an endpoint that holds each request for a delay before passing it on: a round trip over a real
// network (bench/conformance-rtt.ts) or a jittery one (bench/gate-noise.ts), on loopback.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DelayProxy {
  /** The endpoint's URL through the proxy (same path, so the same /v3/<key>). */
  url: string;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 at a free port; `delayMs` is asked once per request. */
export async function startDelayProxy(endpoint: string, delayMs: () => number): Promise<DelayProxy> {
  const target = new URL(endpoint);
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const out = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        out.on('error', () => res.destroy());
        out.end(Buffer.concat(chunks));
      }, delayMs());
    });
  });
  await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${target.pathname}`,
    close: () => new Promise<void>((done) => {
      proxy.closeAllConnections();
      proxy.close(() => done());
    }),
  };
}
