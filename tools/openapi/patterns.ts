/**
 * JSON Schema patterns carry no flags and zod's converter drops a regex's `i`, so a
 * case-insensitive regex is written out with both cases (`asc` becomes `[aA][sS][cC]`).
 * Constructs this does not rewrite faithfully throw, so a new pattern cannot be documented wrong.
 */
const UNSUPPORTED_ESCAPES = new Set(['p', 'P', 'k', 'c', 'u', 'x']);

export const caseInsensitivePattern = (source: string): string => {
  let out = '';
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i]!;
    if (char === '\\') {
      const escaped = source[i + 1] ?? '';
      if (UNSUPPORTED_ESCAPES.has(escaped)) throw new Error(`Cannot make /${source}/ case-insensitive: \\${escaped}`);
      out += `${char}${escaped}`;
      i += 1;
    } else if (char === '[') {
      const end = source.indexOf(']', i);
      const body = source.slice(i, end + 1);
      if (end < 0 || /[a-z]/i.test(body)) throw new Error(`Cannot make /${source}/ case-insensitive: character class ${body}`);
      out += body;
      i = end;
    } else if (char === '(' && source[i + 1] === '?' && source[i + 2] === '<' && !'=!'.includes(source[i + 3] ?? '')) {
      throw new Error(`Cannot make /${source}/ case-insensitive: named group`);
    } else {
      const [lower, upper] = [char.toLowerCase(), char.toUpperCase()];
      out += lower === upper ? char : `[${lower}${upper}]`;
    }
  }
  return out;
};

/** A zod string's regexes, read from its checks, to find the flags the JSON Schema lost. */
export const regexesOf = (zodSchema: { _zod: { def: unknown } }): RegExp[] => {
  const checks = (zodSchema._zod.def as { checks?: { _zod: { def: { pattern?: unknown } } }[] }).checks ?? [];
  return checks.map((check) => check._zod.def.pattern).filter((pattern): pattern is RegExp => pattern instanceof RegExp);
};
