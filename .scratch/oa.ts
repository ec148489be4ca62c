import { buildOpenApiDocument } from '../lib/api/openapi';
const doc = buildOpenApiDocument();
console.log(Object.keys(doc.paths).length, JSON.stringify(doc.paths['/api/v1/attempts']).slice(0, 400));
console.log(JSON.stringify((doc.paths['/api/v1/attempts'] as any).post.requestBody.content['application/json'].schema.properties.startedAt));
