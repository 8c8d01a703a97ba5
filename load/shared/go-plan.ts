// The plan the Go extension reads (k6ext/send.go planText): declared once here, as the scenario writes it
// (load/k6/scenario.ts goPlan); test/load/k6ext.test.ts holds the Go struct's json tags to these keys, so a field
// renamed or added on one side only fails a test instead of arriving as Go's zero value.

/** One method's entries and stripes: [params JSON, reply fingerprint or '', 1 where a null is due, 1 where sampling found the answer
 * conforming, the depth stratum its samples are tagged with (`d`) or '']. */
export interface GoPlanMethod {
  entries: Array<[string, string, 0 | 1, 0 | 1, string]>;
  stripes: number[][];
}

/** One subject's metric names. */
export interface GoPlanSubject {
  histogram: string[];
  bounds: string;
  calls: Record<string, string>;
  validated: string;
  parsed: string;
}

export interface GoPlan {
  url: string;
  timeout: string;
  validateShare: number;
  mix: string[];
  methods: Record<string, GoPlanMethod>;
  subjects: Record<string, GoPlanSubject>;
  inGo: string;
  maxCodeTags: number;
  otherCode: string;
  lower: number[];
  groupBuckets: number;
}

/** The keys of each level, as the Go side must tag them (a `satisfies` below makes these lists the interfaces' own). */
export const GO_PLAN_KEYS = {
  plan: ['url', 'timeout', 'validateShare', 'mix', 'methods', 'subjects', 'inGo', 'maxCodeTags', 'otherCode', 'lower', 'groupBuckets'],
  method: ['entries', 'stripes'],
  subject: ['histogram', 'bounds', 'calls', 'validated', 'parsed'],
} as const satisfies { plan: ReadonlyArray<keyof GoPlan>; method: ReadonlyArray<keyof GoPlanMethod>; subject: ReadonlyArray<keyof GoPlanSubject> };

// Every key of each interface is listed above (a key missing from a list fails to compile here).
type Missing<T, L extends readonly unknown[]> = Exclude<keyof T, L[number]>;
export const GO_PLAN_COMPLETE: [Missing<GoPlan, typeof GO_PLAN_KEYS.plan>, Missing<GoPlanMethod, typeof GO_PLAN_KEYS.method>, Missing<GoPlanSubject, typeof GO_PLAN_KEYS.subject>] extends [never, never, never] ? true : never = true;
