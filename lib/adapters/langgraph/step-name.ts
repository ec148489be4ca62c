/**
 * A step name Holdfast accepts (1 to 100 of letters, digits and `_ . : -`, starting with a letter or
 * digit) made from names LangGraph allows more freely: a node or task may be called "Charge card".
 */
export function stepNameOf(...parts: (string | undefined)[]): string {
  const joined = parts
    .filter((part): part is string => Boolean(part))
    .map((part) => part.replace(/[^A-Za-z0-9_.:-]+/g, '_'))
    .join('.')
    .replace(/^[^A-Za-z0-9]+/, '');
  return joined.slice(0, 100) || 'step';
}
