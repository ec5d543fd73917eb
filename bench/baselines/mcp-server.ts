// Baseline for the authorized MCP call: an MCP SDK server with the same safe tool (whoami's answer shape) and no
// authorization, on plain node:http, stateless (a new server and transport per request, as Portico makes them).
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const port = Number(process.argv[2]);

function server(): McpServer {
  const mcp = new McpServer({ name: 'baseline', version: '1.0.0' });
  mcp.registerTool('whoami', { description: 'Who the caller is.', inputSchema: {} }, async () => {
    const answer = { sub: 'bench-account', email: 'owner@bench.test', client_id: 'bench', act: null, scopes: ['mcp'] };
    return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
  });
  return mcp;
}

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const mcp = server();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void mcp.close());
    void mcp.connect(transport).then(() => transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString())));
  });
}).listen(port, '127.0.0.1', () => console.log(`baseline MCP server ready at http://127.0.0.1:${port}`));
