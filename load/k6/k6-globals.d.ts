// k6 provides a console (it logs through k6's logger), which @types/k6 does not declare.
declare const console: {
  log(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
};
