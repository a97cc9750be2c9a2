/**
 * oxmcp for Node.js: MCP servers and clients in TypeScript over the oxmcp Rust core,
 * speaking both protocol eras.
 *
 * - `Server`: `registerTool` / `registerResource` / `registerPrompt` with zod or JSON
 *   Schema, then `listen()`.
 * - `Server`: `listen({ transport: 'stdio' })` or `listen({ transport: 'http', port })`.
 * - `Client`: `Client.connectStdio(...)`, `Client.connectHttp(url)` or
 *   `Client.connectInProcess(server)`, then `listTools()`, `callTool()`…
 * - `completable()`: a prompt argument's zod schema that suggests values.
 * - `McpServer`, `LowLevelServer` and their transports: the official TypeScript SDK's
 *   server API, so that a server written for `@modelcontextprotocol/sdk` runs with its
 *   imports changed (`oxmcp/sdk` has them under the official names).
 */

export { IntrospectionVerifier, JwtVerifier } from './auth';
export type { AccessToken, IntrospectionVerifierOptions, JwtVerifierOptions, TokenVerifier, Verifier } from './auth';
export { Client, ToolTask } from './client';
export { OAuth, requestIdJag } from './oauth';
export type { AssertionTarget, ClientCredentialsOptions, JwtBearerOptions, OAuthOptions, TokenStorage } from './oauth';
export type {
  CallToolParams,
  ClientEvents,
  ClientHandlers,
  ClientOptions,
  HttpClientOptions,
  RequestOptions,
  StdioServerParameters,
  Subscription,
  SubscriptionFilter,
} from './client';
export { Context } from './context';
export type { ElicitInput, HttpRequestInfo } from './context';
export { completable } from './completable';
export type { CompleteCallback } from './completable';
export { ErrorCode, InputRequired, McpError, ResourceNotFoundError, UrlElicitationRequiredError } from './errors';
export type { McpErrorKind } from './errors';
export type { Infer, SchemaInput, SchemaShape, StandardSchemaLike } from './schema';
export { Registration, ResourceTemplate, Server } from './server';
export * from './bearer';
export { LowLevelServer } from './lowlevel';
export type {
  AuthInfo,
  LowLevelNotificationHandler,
  LowLevelRequestHandler,
  LowLevelServerOptions,
  MethodSchema,
  OutgoingMessage,
  RequestHandlerExtra,
} from './lowlevel';
export { McpServer } from './official';
export type { McpServerOptions, OfficialCallback } from './official';
export {
  createMcpExpressApp,
  HttpTransport,
  isInitializeRequest,
  SSEServerTransport,
  StdioServerTransport,
  StreamableHTTPServerTransport,
  WebStandardStreamableHTTPServerTransport,
} from './transports';
export type { McpExpressApp, MessageTransport, SSEServerTransportOptions, StreamableHTTPServerTransportOptions } from './transports';
export type { FetchHandler, NodeHandler, WebStandardRequestOptions } from './mounted';
export type {
  Catalog,
  CatalogLister,
  CatalogServer,
  Completer,
  CustomNotificationHandler,
  CustomRequestHandler,
  DeclarableCapability,
  HttpAddress,
  HttpListenOptions,
  HttpMountOptions,
  InterceptedRequest,
  Interceptor,
  ListenOptions,
  NextMethod,
  PromptConfig,
  PromptHandler,
  PromptReturn,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredTool,
  ResourceHandlerFor,
  ResourceLister,
  ResourceMetadata,
  ResourceReturn,
  ServerOptions,
  StaticResourceHandler,
  StdioListenOptions,
  TemplateLister,
  TemplateResourceHandler,
  TemplateVariables,
  ToolConfig,
  ToolHandler,
  ToolReturn,
} from './server';
export type { StdioStreams } from './stdio';
export type * from './types';
