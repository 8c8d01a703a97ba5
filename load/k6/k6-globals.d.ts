// k6 provides a console (it logs through k6's logger), which @types/k6 does not declare.
declare const console: {
  log(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
};
// k6's require() in the init context: how the scenario loads k6/x/rpccertify only when the runner says it is there.
declare function require(specifier: string): unknown;
