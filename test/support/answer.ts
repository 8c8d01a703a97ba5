// A JSON-RPC answer as the node tests read it off the wire (devnet, geth, the real clients): `result` is loose on
// purpose, each test asserting the fields it reads.
export type Answer = { jsonrpc: string; id: unknown; result?: any; error?: { code: number; message: string; data?: unknown } };
