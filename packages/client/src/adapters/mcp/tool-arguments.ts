import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

const validator = new AjvJsonSchemaValidator();
/** One compiled check per listed tool (a new tools/list lists new objects, so a changed schema is compiled anew). */
const checks = new WeakMap<Tool, (input: unknown) => string | undefined>();

/**
 * Why these arguments do not fit the tool's input schema, or undefined when they do (or the schema cannot be
 * compiled: then the server judges them, as it would without the gateway). Arguments the tool would refuse are the
 * caller's mistake, answered before anything is recorded, so a misspelt argument never becomes a dead letter.
 */
export function argumentsProblem(tool: Tool, args: Record<string, unknown> | undefined): string | undefined {
  let check = checks.get(tool);
  if (!check) {
    try {
      const validate = validator.getValidator(tool.inputSchema as Parameters<typeof validator.getValidator>[0]);
      check = (input) => {
        const result = validate(input);
        return result.valid ? undefined : result.errorMessage;
      };
    } catch {
      check = () => undefined;
    }
    checks.set(tool, check);
  }
  return check(args ?? {});
}
