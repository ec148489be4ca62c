import type { Metadata } from 'next';
import { PageHeader } from '@/components/ui/page-header';
import { Cell, HeaderCell, Table } from '@/components/ui/table';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { requirePerson } from '@/lib/server/session';

export const metadata: Metadata = { title: 'API reference' };
export const dynamic = 'force-dynamic';

interface FieldSchema {
  type?: string;
  format?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
  items?: FieldSchema;
}

interface Operation {
  operationId: string;
  summary: string;
  requestBody: {
    content: { 'application/json': { schema: { properties?: Record<string, FieldSchema>; required?: string[] } } };
  };
  responses: Record<string, { description: string }>;
}

/** A field's type and bounds in a few words. */
function describeField(field: FieldSchema): string {
  const parts = [field.format ?? field.type ?? 'any JSON'];
  if (field.type === 'array' && field.items) parts[0] = `array of ${field.items.type ?? 'any'}`;
  if (field.enum) parts.push(`one of ${field.enum.map(String).join(', ')}`);
  if (field.minimum !== undefined || field.maximum !== undefined)
    parts.push(`${field.minimum ?? '…'} to ${field.maximum ?? '…'}`);
  if (field.minLength !== undefined || field.maxLength !== undefined)
    parts.push(`${field.minLength ?? 0}–${field.maxLength ?? '…'} characters`);
  if (field.default !== undefined) parts.push(`default ${JSON.stringify(field.default)}`);
  return parts.join('; ');
}

/** The agents' API, rendered from the same OpenAPI document /api/v1/openapi.json serves. */
export default async function ApiReferencePage() {
  await requirePerson();
  const document = buildOpenApiDocument();
  // GET /api/v1/step-stats has no body to tabulate; the reference lists the POST endpoints.
  const operations = Object.entries(document.paths).flatMap(([path, item]) =>
    'post' in item && item.post ? [{ path, operation: item.post as unknown as Operation }] : [],
  );

  return (
    <>
      <PageHeader
        title="API reference"
        description="The HTTP API agents call, in any language. Generated from the same schemas the library validates with."
      />
      <section className="mb-6 max-w-prose text-[13px] leading-relaxed">
        <p>{document.info.description}</p>
        <p className="mt-2">
          The machine-readable document:{' '}
          <a href="/api/v1/openapi.json" className="text-accent hover:underline">
            /api/v1/openapi.json
          </a>{' '}
          (OpenAPI 3.1). Tokens are made under API tokens.
        </p>
      </section>
      <nav aria-label="Endpoints" className="mb-6 columns-2 text-[13px]">
        {operations.map(({ path, operation }) => (
          <a key={path} href={`#${operation.operationId}`} className="block text-accent hover:underline">
            POST {path}
          </a>
        ))}
      </nav>
      {operations.map(({ path, operation }) => {
        const schema = operation.requestBody.content['application/json'].schema;
        const required = new Set(schema.required ?? []);
        return (
          <section
            key={path}
            id={operation.operationId}
            aria-labelledby={`${operation.operationId}-title`}
            className="mb-8"
            data-testid={`endpoint-${operation.operationId}`}
          >
            <h2 id={`${operation.operationId}-title`} className="font-mono text-[14px] font-semibold">
              POST {path}{' '}
              <span className="font-sans text-[12px] font-normal text-muted">({operation.operationId})</span>
            </h2>
            <p className="mb-2 mt-1 max-w-prose text-[13px]">{operation.summary}</p>
            {schema.properties ? (
              <Table>
                <caption className="sr-only">Body fields of {path}</caption>
                <thead>
                  <tr>
                    <HeaderCell>Field</HeaderCell>
                    <HeaderCell>Required</HeaderCell>
                    <HeaderCell>Type and bounds</HeaderCell>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(schema.properties).map(([name, field]) => (
                    <tr key={name}>
                      <Cell className="font-mono text-[12px]">{name}</Cell>
                      <Cell>{required.has(name) ? 'yes' : 'no'}</Cell>
                      <Cell className="text-[12px]">{describeField(field)}</Cell>
                    </tr>
                  ))}
                </tbody>
              </Table>
            ) : null}
            <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-3 text-[12px]">
              {Object.entries(operation.responses).map(([status, response]) => (
                <div key={status} className="contents">
                  <dt className="font-mono">{status}</dt>
                  <dd>{response.description}</dd>
                </div>
              ))}
            </dl>
          </section>
        );
      })}
    </>
  );
}
