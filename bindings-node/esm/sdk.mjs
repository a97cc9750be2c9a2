// The ESM `oxmcp/sdk` entry point: the CommonJS build's exports, so that `import` and
// `require` share one module instance (one `McpError` class, one native binding).
import sdk from '../dist/sdk.js';

export const {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializedNotificationSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  McpServer,
  ReadResourceRequestSchema,
  ResourceTemplate,
  RootsListChangedNotificationSchema,
  Server,
  SetLevelRequestSchema,
  StdioServerTransport,
  StreamableHTTPServerTransport,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  WebStandardStreamableHTTPServerTransport,
  completable,
  createMcpExpressApp,
  isInitializeRequest,
} = sdk;
