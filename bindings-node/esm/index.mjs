// The ESM entry point: the CommonJS build's exports, so that `import` and `require`
// share one module instance (one `McpError` class, one native binding).
import oxmcp from '../dist/index.js';

export const {
  Client,
  Context,
  ErrorCode,
  HttpTransport,
  InputRequired,
  IntrospectionVerifier,
  JwtVerifier,
  LowLevelServer,
  McpError,
  McpServer,
  OAuth,
  Registration,
  ResourceNotFoundError,
  ResourceTemplate,
  Server,
  SSEServerTransport,
  StdioServerTransport,
  StreamableHTTPServerTransport,
  ToolTask,
  UrlElicitationRequiredError,
  WebStandardStreamableHTTPServerTransport,
  completable,
  createMcpExpressApp,
  isInitializeRequest,
  requestIdJag,
} = oxmcp;
