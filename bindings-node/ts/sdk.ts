/**
 * The official TypeScript SDK's server names, for a server ported by changing its
 * imports: what it imported from `@modelcontextprotocol/sdk/server/*.js` and
 * `@modelcontextprotocol/sdk/types.js` (or `@modelcontextprotocol/server`) it imports
 * from `oxmcp/sdk`. `Server` is the low-level server here (oxmcp's own `Server` is the
 * main entry point's).
 */

export * from './bearer';
export { completable } from './completable';
export { ErrorCode, McpError, UrlElicitationRequiredError } from './errors';
export { InMemoryTaskMessageQueue, InMemoryTaskStore, isTerminal, RELATED_TASK_META_KEY } from './experimental';
export type {
  CreateTaskResult,
  RequestTaskStore,
  ResponseMessage,
  StoredTask,
  TaskHandlerExtra,
  TaskParams,
  TaskToolConfig,
  ToolTaskHandler,
} from './experimental';
export { LowLevelServer as Server } from './lowlevel';
export type {
  AuthInfo,
  LowLevelNotificationHandler,
  LowLevelRequestHandler,
  LowLevelServerOptions as ServerOptions,
  MethodSchema,
  RequestHandlerExtra,
} from './lowlevel';
export { McpServer } from './official';
export type { McpServerOptions } from './official';
export * from './requests';
export { ResourceTemplate } from './server';
export {
  createMcpExpressApp,
  isInitializeRequest,
  SSEServerTransport,
  StdioServerTransport,
  StreamableHTTPServerTransport,
  WebStandardStreamableHTTPServerTransport,
} from './transports';
export type { WebStandardRequestOptions } from './mounted';
export type { MessageTransport, SSEServerTransportOptions, StreamableHTTPServerTransportOptions } from './transports';
export type * from './types';
