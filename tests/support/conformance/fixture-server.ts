import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ElicitRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** A 1x1 PNG and a tiny WAV: content the fixture answers as image, audio and binary resource. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=';
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** How long a tool that notified lets its notifications go out before it answers (see test_tool_with_progress). */
const NOTIFICATIONS_SETTLE_MS = 50;

/**
 * An MCP server that implements what the official conformance suite (@modelcontextprotocol/conformance) asks of a
 * server under test: its fixture tools, resources, prompts, completion, logging and subscriptions, written here
 * from the suite's scenario descriptions. One per session: `subscribers` is shared by the sessions of one host, so
 * an update reaches the sessions that subscribed.
 */
export function createConformanceServer(subscribers: Set<McpServer>): McpServer {
  const server = new McpServer(
    { name: 'holdfast-conformance-fixture', version: '1.0.0' },
    {
      capabilities: {
        logging: {},
        completions: {},
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        tools: { listChanged: true },
      },
    },
  );
  const text = (value: string) => ({ type: 'text' as const, text: value });

  server.registerTool('test_simple_text', { description: 'Answers simple text' }, async () => ({
    content: [text('This is a simple text response for testing.')],
  }));
  server.registerTool('test_image_content', { description: 'Answers an image' }, async () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'Answers audio' }, async () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }));
  server.registerTool('test_embedded_resource', { description: 'Answers an embedded resource' }, async () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }));
  server.registerTool(
    'test_multiple_content_types',
    { description: 'Answers text, an image and a resource' },
    async () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: '{"test":"data","value":123}',
          },
        },
      ],
    }),
  );
  server.registerTool('test_tool_with_logging', { description: 'Logs three messages while it runs' }, async (extra) => {
    for (const [index, message] of [
      'Tool execution started',
      'Tool processing data',
      'Tool execution completed',
    ].entries()) {
      if (index > 0) await pause(50);
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: message } });
    }
    await pause(NOTIFICATIONS_SETTLE_MS);
    return { content: [text('Tool with logging executed successfully')] };
  });
  server.registerTool('test_tool_with_progress', { description: 'Reports progress while it runs' }, async (extra) => {
    const progressToken = extra._meta?.progressToken;
    for (const [index, progress] of [0, 50, 100].entries()) {
      if (index > 0) await pause(50);
      if (progressToken !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress, total: 100 },
        });
    }
    // Over stdio the SDK can deliver a notification just written after an answer written after it, when the machine
    // is loaded (seen directly, no gateway between: progress 100 "for an unknown token"); a moment's pause keeps the
    // order the scenario asks of the server itself.
    await pause(NOTIFICATIONS_SETTLE_MS);
    return { content: [text('Tool with progress executed successfully')] };
  });
  server.registerTool('test_error_handling', { description: 'Always fails' }, async () => ({
    isError: true,
    content: [text('This tool intentionally returns an error for testing')],
  }));
  server.registerTool(
    'test_sampling',
    { description: "Asks the client's model", inputSchema: { prompt: z.string() } },
    async ({ prompt }, extra) => {
      const answer = await server.server.createMessage(
        { messages: [{ role: 'user', content: text(prompt) }], maxTokens: 100 },
        { relatedRequestId: extra.requestId },
      );
      return {
        content: [text(`LLM response: ${answer.content.type === 'text' ? answer.content.text : answer.content.type}`)],
      };
    },
  );
  const elicit = async (params: ElicitRequest['params'], requestId: string | number) =>
    server.server.elicitInput(params, { relatedRequestId: requestId });
  server.registerTool(
    'test_elicitation',
    { description: 'Asks a person', inputSchema: { message: z.string() } },
    async ({ message }, extra) => {
      const answer = await elicit(
        {
          message,
          requestedSchema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          },
        },
        extra.requestId,
      );
      return {
        content: [text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`)],
      };
    },
  );
  /** A tool that asks the person to fill `properties` and answers what they did. */
  const askingTool = (name: string, description: string, message: string, properties: Record<string, unknown>) =>
    server.registerTool(name, { description }, async (extra) => {
      const answer = await elicit(
        { message, requestedSchema: { type: 'object', properties } as never },
        extra.requestId,
      );
      return {
        content: [
          text(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`),
        ],
      };
    });
  askingTool('test_elicitation_sep1034_defaults', 'Asks with defaults', 'Please review the defaults', {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  });
  askingTool('test_elicitation_sep1330_enums', 'Asks with every kind of enum', 'Please choose', {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  });

  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource', mimeType: 'text/plain' },
    async () => ({
      contents: [
        { uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' },
      ],
    }),
  );
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static binary resource', mimeType: 'image/png' },
    async () => ({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }] }),
  );
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource clients subscribe to', mimeType: 'text/plain' },
    async () => ({ contents: [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'watched' }] }),
  );
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'Data by id', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );
  server.server.setRequestHandler(SubscribeRequestSchema, async () => {
    subscribers.add(server);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async () => {
    subscribers.delete(server);
    return {};
  });

  server.registerPrompt('test_simple_prompt', { description: 'A simple prompt' }, async () => ({
    messages: [{ role: 'user', content: text('This is a simple prompt for testing.') }],
  }));
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with arguments',
      argsSchema: {
        arg1: completable(z.string(), (value) => ['paris', 'park', 'party'].filter((word) => word.startsWith(value))),
        arg2: z.string(),
      },
    },
    async ({ arg1, arg2 }) => ({
      messages: [{ role: 'user', content: text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`) }],
    }),
  );
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'A prompt with a resource', argsSchema: { resourceUri: z.string() } },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: text('Please process the embedded resource above.') },
      ],
    }),
  );
  server.registerPrompt('test_prompt_with_image', { description: 'A prompt with an image' }, async () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
      { role: 'user', content: text('Please analyze the image above.') },
    ],
  }));
  return server;
}
