/**
 * holdfast-mcp: puts Holdfast in front of an MCP server. In a client's MCP
 * configuration, the server's command becomes the gateway's, with the server's
 * own command after `--` (docs/agents/mcp-gateway.md):
 *
 *   holdfast-mcp --holdfast-url http://127.0.0.1:3000 --server-name payments --owner team:payments -- node payments-server.js
 *
 * In this repository: node --import tsx packages/client/src/adapters/mcp/cli.ts ... It imports
 * nothing that needs the repository at run time, so esbuild bundles it whole.
 * It writes only to stderr: over stdio, stdout carries the protocol.
 */
import { ConfigError, parseGatewayArgs, USAGE } from './gateway-config';
import { serveGateway } from './serve';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') && (argv.indexOf('--') === -1 || argv.indexOf('--help') < argv.indexOf('--'))) {
    process.stderr.write(USAGE);
    return;
  }
  let config: ReturnType<typeof parseGatewayArgs>;
  try {
    config = parseGatewayArgs(argv, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`holdfast-mcp: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  const running = await serveGateway(config);
  const upstream = config.upstream.kind === 'http' ? config.upstream.url : config.upstream.command;
  process.stderr.write(
    `holdfast-mcp: guarding ${config.serverName} (${upstream}) for ${config.owner}; ${running.url ? `serving ${running.url}` : 'serving stdio'}\n`,
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void running.close());
  await running.closed;
  // A stdio server the gateway started is closed with it; nothing else should keep the process.
  process.exit(0);
}

main().catch((error: unknown) => {
  process.stderr.write(`holdfast-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
