// Finds literals that list the eight methods (an array, a record, a union type) in TypeScript source, for
// test/core/methods-table.test.ts: a small tokenizer (TypeScript 7 ships no compiler API to parse with).
import { METHODS } from '../../core/methods.ts';

/** A literal naming this many of the eight is a list of them. */
const AT_MOST = 2;

type Token = { kind: 'open' | 'close'; text: string } | { kind: 'string'; text: string } | { kind: 'word'; text: string } | { kind: 'punct'; text: string };

/** Tokens of TypeScript source, enough to see literals: comments dropped, strings and template texts whole, regexes skipped. */
function tokenize(src: string): Token[] {
  const out: Token[] = [];
  // The braces that close a template's `${`, innermost last: a `}` closing one resumes the template text.
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const regexCanStart = () => {
    const prev = out[out.length - 1];
    return !prev || prev.kind === 'open' || (prev.kind === 'punct' && prev.text !== ')') || (prev.kind === 'word' && ['return', 'typeof', 'case', 'of', 'in'].includes(prev.text));
  };
  const templateText = () => {
    // From just after a backtick or a `}` that closes `${`, to the closing backtick or the next `${`.
    let text = '';
    while (i < src.length) {
      const c = src[i]!;
      if (c === '\\') {
        text += src.slice(i, i + 2);
        i += 2;
      } else if (c === '`') {
        i++;
        out.push({ kind: 'string', text });
        return;
      } else if (c === '$' && src[i + 1] === '{') {
        i += 2;
        out.push({ kind: 'string', text });
        templates.push(depth);
        return;
      } else {
        text += c;
        i++;
      }
    }
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === '/' && src[i + 1] === '/') i = src.indexOf('\n', i) < 0 ? src.length : src.indexOf('\n', i);
    else if (c === '/' && src[i + 1] === '*') i = src.indexOf('*/', i + 2) < 0 ? src.length : src.indexOf('*/', i + 2) + 2;
    else if (c === '"' || c === "'") {
      let j = i + 1;
      let text = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\') text += src[++j] ?? '';
        else text += src[j];
        j++;
      }
      out.push({ kind: 'string', text });
      i = j + 1;
    } else if (c === '`') {
      i++;
      templateText();
    } else if (c === '/' && regexCanStart()) {
      let j = i + 1;
      let inClass = false;
      while (j < src.length && (inClass || src[j] !== '/')) {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        j++;
      }
      i = j + 1;
      while (i < src.length && /[a-z]/.test(src[i]!)) i++;
      out.push({ kind: 'punct', text: '/re/' });
    } else if (c === '(' || c === '[' || c === '{') {
      depth++;
      out.push({ kind: 'open', text: c });
      i++;
    } else if (c === '}' && templates[templates.length - 1] === depth) {
      templates.pop();
      i++;
      templateText();
    } else if (c === ')' || c === ']' || c === '}') {
      depth--;
      out.push({ kind: 'close', text: c });
      i++;
    } else if (/[A-Za-z_$]/.test(c)) {
      const word = /^[A-Za-z0-9_$]+/.exec(src.slice(i))![0];
      out.push({ kind: 'word', text: word });
      i += word.length;
    } else if (/\s/.test(c)) i++;
    else {
      out.push({ kind: 'punct', text: c });
      i++;
    }
  }
  return out;
}

/** The array, record and union literals of a source that name more than AT_MOST of the methods, as "[a, b, c]". */
export function methodLists(src: string): string[] {
  const tokens = tokenize(src);
  const isMethod = (t: Token | undefined) => t !== undefined && (t.kind === 'string' || t.kind === 'word') && (METHODS as readonly string[]).includes(t.text);
  const found: string[] = [];
  const report = (names: Set<string>, open: string) => {
    if (names.size > AT_MOST) found.push(`${open}${[...names].join(', ')}${open === '[' ? ']' : open === '{' ? '}' : ''}`);
  };
  // Per open bracket: the methods named directly inside it, as an element or a key (a `case` label is not).
  const stack: Array<{ open: string; names: Set<string> }> = [{ open: '', names: new Set() }];
  let union = new Set<string>();
  tokens.forEach((t, k) => {
    const prev = tokens[k - 1];
    const next = tokens[k + 1];
    if (t.kind === 'open') stack.push({ open: t.text, names: new Set() });
    else if (t.kind === 'close') {
      const top = stack.pop();
      if (top && stack.length > 0) report(top.names, top.open);
    } else if (isMethod(t)) {
      const element = t.kind === 'string' && !(prev?.kind === 'word' && prev.text === 'case');
      const key = next?.kind === 'punct' && next.text === ':' && !(prev?.kind === 'word' && prev.text === 'case');
      const top = stack[stack.length - 1]!;
      // An argument or an operand inside (...) is a name the code uses, not an element of a list.
      if ((element && top.open !== '(') || key) top.names.add(t.text);
      // A union type of the names: 'a' | 'b' | 'c'.
      if (t.kind === 'string' && prev?.kind === 'punct' && prev.text === '|') union.add(t.text);
      else if (t.kind === 'string' && next?.kind === 'punct' && next.text === '|') union = new Set([t.text]);
      if (!(next?.kind === 'punct' && next.text === '|')) {
        report(union, '');
        union = new Set();
      }
    }
  });
  return found;
}

