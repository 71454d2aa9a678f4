// The Vercel AI SDK's MCP client (@ai-sdk/mcp), driven by tests/interop/test_ai_sdk.py.
//
//     node ai_sdk_client.mjs CONFIG_JSON
//
// CONFIG_JSON says how to connect:
//   {"transport": {"type": "stdio", "command": ..., "args": [...], "env": {...}}
//                 or {"type": "http", "url": ...},
//    "discovery": true|false,   // protocolVersionDiscovery (false pins 2025-11-25)
//    "waits": true|false,       // transport.waitsForProtocolVersionDiscovery (stdio only)
//    "forms": true|false,       // declare elicitation (forms) and register the handler
//    "package": DIR}            // the installed @ai-sdk/mcp (.ci/node/ai-sdk/node_modules/...)
//
// It writes one JSON line per event on stdout: {"connected": PROTOCOL} once connected (or
// {"failed": {...}} if it could not connect, and exits). Then it reads one JSON line per
// call on stdin, {"tool": NAME, "arguments": {...}, "answers": [ElicitResult, ...]}, and
// answers each elicitation the server sends during that call with the next of ANSWERS in
// turn (a call that asks more often than it has answers gets "cancel" and says so). Each
// call ends with one line: {"result": CallToolResult, "asked": [params, ...]} or
// {"error": {"message", "code"}, "asked": [...]}. End of stdin closes the client.
//
// The handler is the client's own elicitation handler (onElicitationRequest): on 2025-11-25
// it answers elicitation/create requests, on 2026-07-28 the client calls it for each
// input request of an input_required result and retries the call with the answers.
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const config = JSON.parse(process.argv[2]);
// The package lives in .ci/node/ai-sdk, not beside this script, and ES modules ignore
// NODE_PATH: import its entry points by path (its own imports resolve from there).
const entry = path => import(pathToFileURL(join(config.package, path)).href);
const { createMCPClient, ElicitationRequestSchema } = await entry('dist/index.js');
const { Experimental_StdioMCPTransport } = await entry('dist/mcp-stdio/index.js');
const say = event => process.stdout.write(JSON.stringify(event) + '\n');
const failure = error => ({
  message: String(error?.message ?? error),
  code: error?.code ?? null,
});

let transport;
if (config.transport.type === 'stdio') {
  transport = new Experimental_StdioMCPTransport({
    command: config.transport.command,
    args: config.transport.args,
    env: config.transport.env,
    stderr: 'inherit', // the server's log goes to this script's stderr, the test's log
  });
  // The workaround for the client's stdio probe race (docs/clients.md): wait for the
  // answer to server/discover instead of giving up after one second.
  if (config.waits) transport.waitsForProtocolVersionDiscovery = true;
} else {
  transport = { type: 'http', url: config.transport.url };
}

let client;
try {
  client = await createMCPClient({
    transport,
    protocolVersionDiscovery: config.discovery,
    clientName: 'elicitkit-interop',
    ...(config.forms ? { capabilities: { elicitation: {} } } : {}),
  });
} catch (error) {
  say({ failed: failure(error) });
  process.exit(0);
}

let call = null; // the call in progress: its answers still to give, and what was asked
if (config.forms) {
  client.onElicitationRequest(ElicitationRequestSchema, request => {
    call.asked.push(request.params);
    return call.answers.shift() ?? { action: 'cancel', _meta: { unexpected: true } };
  });
}
say({ connected: client.initializeResult.protocolVersion });

for await (const line of createInterface({ input: process.stdin })) {
  const { tool, arguments: args, answers } = JSON.parse(line);
  call = { answers: [...answers], asked: [] };
  try {
    const result = await client.callTool({ name: tool, arguments: args ?? {} });
    say({ result, asked: call.asked, unused: call.answers.length });
  } catch (error) {
    say({ error: failure(error), asked: call.asked, unused: call.answers.length });
  }
}
await client.close();
