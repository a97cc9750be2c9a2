/**
 * oxmcp for Node.js: MCP servers and clients in TypeScript over the oxmcp Rust core,
 * speaking both protocol eras.
 *
 * - `Server`: `registerTool` / `registerResource` / `registerPrompt` with zod or JSON
 *   Schema, then `listen()`.
 * - `Client`: `Client.connectStdio(...)` or `Client.connectInProcess(server)`, then
 *   `listTools()`, `callTool()`…
 */

export { Client } from './client';
export type {
  CallToolParams,
  ClientEvents,
  ClientHandlers,
  ClientOptions,
  RequestOptions,
  StdioServerParameters,
  Subscription,
  SubscriptionFilter,
} from './client';
export { Context } from './context';
export type { ElicitInput } from './context';
export { ErrorCode, McpError } from './errors';
export type { McpErrorKind } from './errors';
export type { Infer, SchemaInput, SchemaShape, StandardSchemaLike } from './schema';
export { Registration, ResourceTemplate, Server } from './server';
export type {
  CompleteCallback,
  ListenOptions,
  PromptConfig,
  PromptHandler,
  PromptReturn,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredResourceTemplate,
  RegisteredTool,
  ResourceHandlerFor,
  ResourceMetadata,
  ResourceReturn,
  ServerOptions,
  StaticResourceHandler,
  TemplateResourceHandler,
  TemplateVariables,
  ToolConfig,
  ToolHandler,
  ToolReturn,
} from './server';
export type * from './types';
