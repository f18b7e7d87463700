// A small JSON diff for people: the paths where two documents differ.
type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: Json) => {
  const text = JSON.stringify(v);
  return text === undefined ? 'nothing' : text.length > 100 ? `${text.slice(0, 97)}...` : text;
};

/** Paths where `answer` differs from `recorded`: `~` changed, `+` only in the answer, `-` only recorded. */
export function jsonDiff(recorded: Json, answer: Json, path = ''): string[] {
  if (isObject(recorded) && isObject(answer)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(answer)])];
    return keys.flatMap((k) => {
      const sub = path ? `${path}.${k}` : k;
      if (!(k in answer)) return [`- ${sub}: ${show(recorded[k])}`];
      if (!(k in recorded)) return [`+ ${sub}: ${show(answer[k])}`];
      return jsonDiff(recorded[k], answer[k], sub);
    });
  }
  if (Array.isArray(recorded) && Array.isArray(answer)) {
    const out: string[] = [];
    for (let i = 0; i < Math.max(recorded.length, answer.length); i++) {
      const sub = `${path}[${i}]`;
      if (i >= answer.length) out.push(`- ${sub}: ${show(recorded[i])}`);
      else if (i >= recorded.length) out.push(`+ ${sub}: ${show(answer[i])}`);
      else out.push(...jsonDiff(recorded[i], answer[i], sub));
    }
    return out;
  }
  return JSON.stringify(recorded) === JSON.stringify(answer) ? [] : [`~ ${path || '(whole)'}: recorded ${show(recorded)}, answer ${show(answer)}`];
}
