/**
 * A step name Holdfast accepts (1 to 100 of letters, digits and `_ . : -`, starting with a letter or
 * digit) made from names the frameworks allow more freely: a LangGraph node may be called "Charge card",
 * an Agents SDK agent "Billing agent".
 */
export function stepNameOf(...parts: (string | undefined)[]): string {
  const joined = parts
    .filter((part): part is string => Boolean(part))
    .map((part) => part.replace(/[^A-Za-z0-9_.:-]+/g, '_'))
    .join('.')
    .replace(/^[^A-Za-z0-9]+/, '');
  return joined.slice(0, 100) || 'step';
}
