/**
 * The protocol's wire types, as JavaScript sees them. The Rust core defines and checks
 * them; these declarations describe what crosses into JavaScript. Objects may carry
 * fields newer revisions add, hence the open index signatures on a few of them.
 */

/** A JSON value. */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** A `_meta` object. */
export type Meta = Record<string, unknown>;

/** The two wire eras of MCP: `legacy` (2024-11-05 to 2025-11-25), `modern` (2026-07-28). */
export type Era = 'legacy' | 'modern';

/** Which era a client speaks: probe (`auto`), or one of them. */
export type EraMode = 'auto' | Era;

/** Syslog severities, lowest first. */
export type LoggingLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** An icon for display. */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** The name and version of a client or server. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  websiteUrl?: string;
}

/** Hints about who content is for and how much it matters. */
export interface Annotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

/** Text content. */
export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}

/** Image or audio content, base64-encoded. */
export interface MediaContent {
  type: 'image' | 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

/** A link to a resource. */
export interface ResourceLink extends Resource {
  type: 'resource_link';
}

/** A resource embedded in content. */
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}

/** One item of tool or prompt content. */
export type ContentBlock = TextContent | MediaContent | ResourceLink | EmbeddedResource;

/** Behaviour hints of a tool. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/** A tool as `tools/list` shows it. */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Meta;
  [key: string]: unknown;
}

/** Result of `tools/call`. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
  [key: string]: unknown;
}

/** Where a task is in its life. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * A tool call the server runs in the background, as `tasks/get` shows it. `ttlMs` and
 * `pollIntervalMs` read either revision's names (2025-11-25 says `ttl` and `pollInterval`).
 */
export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs?: number;
  pollIntervalMs?: number;
}

/** A static resource. */
export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

/** A family of resources described by an RFC 6570 URI template. */
export interface ResourceTemplateDefinition {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

/** Text or base64 contents of a resource. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Meta }
  | { uri: string; mimeType?: string; blob: string; _meta?: Meta };

/** Result of `resources/read`. */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
  [key: string]: unknown;
}

/** An argument of a prompt. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt as `prompts/list` shows it. */
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

/** One message of a prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/** Result of `prompts/get`. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
  [key: string]: unknown;
}

/** One page of a list result. */
export interface Page {
  nextCursor?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

/** Result of `tools/list`. */
export interface ListToolsResult extends Page {
  tools: Tool[];
}

/** Result of `resources/list`. */
export interface ListResourcesResult extends Page {
  resources: Resource[];
}

/** Result of `resources/templates/list`. */
export interface ListResourceTemplatesResult extends Page {
  resourceTemplates: ResourceTemplateDefinition[];
}

/** Result of `prompts/list`. */
export interface ListPromptsResult extends Page {
  prompts: Prompt[];
}

/** What `completion/complete` completes: a prompt argument or a template variable. */
export type CompletionReference = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** Params of `completion/complete`. */
export interface CompleteRequestParams {
  ref: CompletionReference;
  argument: { name: string; value: string };
  context?: { arguments?: Record<string, string> };
}

/** Result of `completion/complete`. */
export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [key: string]: unknown;
}

/** A root the client exposes. */
export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}

/** Result of `roots/list`. */
export interface ListRootsResult {
  roots: Root[];
  [key: string]: unknown;
}

/** One file of a skill: its URI, and the size and digest its bytes must have. */
export interface SkillResource {
  uri: string;
  /** `sha256:` and the lowercase hex SHA-256 of the file's bytes. */
  digest: string;
  /** The file's length in bytes. */
  size: number;
}

/**
 * A skill a server offers (the skills extension): the URI of its `SKILL.md`, the YAML front
 * matter of that file, and every file of the skill (or `'dynamic'`).
 */
export interface Skill {
  uri: string;
  frontmatter: { name?: string; description?: string; [key: string]: unknown };
  resources: SkillResource[] | 'dynamic';
  [key: string]: unknown;
}

/** Params of `elicitation/create`: a form, or (2025-11-25 on) a URL to visit. */
export type ElicitRequestParams =
  | { mode?: 'form'; message: string; requestedSchema: JsonSchema; _meta?: Meta }
  | { mode: 'url'; message: string; url: string; elicitationId: string; _meta?: Meta };

/** What the user did with an elicitation. */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: Meta;
  [key: string]: unknown;
}

/** Content of a sampling message. */
export type SamplingContent = TextContent | MediaContent | Record<string, unknown>;

/** A message of a sampling conversation. */
export interface SamplingMessage {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  _meta?: Meta;
}

/** Params of `sampling/createMessage`. */
export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: Record<string, unknown>;
  includeContext?: 'none' | 'thisServer' | 'allServers';
  metadata?: Record<string, unknown>;
  tools?: Tool[];
  toolChoice?: Record<string, unknown>;
  _meta?: Meta;
}

/** Result of `sampling/createMessage`. */
export interface CreateMessageResult {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

/** What a server can do. */
export interface ServerCapabilities {
  tools?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  prompts?: { listChanged?: boolean };
  logging?: Record<string, unknown>;
  completions?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What a client can do. */
export interface ClientCapabilities {
  roots?: { listChanged?: boolean };
  sampling?: { tools?: Record<string, unknown>; context?: Record<string, unknown> };
  elicitation?: { form?: Record<string, unknown>; url?: Record<string, unknown> };
  [key: string]: unknown;
}

/** Params of `notifications/progress`. */
export interface ProgressNotificationParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

/** Params of `notifications/message`. */
export interface LoggingMessageNotificationParams {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

/** A notification from the server. */
export interface ServerNotification {
  method: string;
  params?: Record<string, unknown> | null;
}

/** Something a server needs from the client before it can finish (2026-07-28). */
export type InputRequest =
  | { method: 'elicitation/create'; params: ElicitRequestParams }
  | { method: 'sampling/createMessage'; params: CreateMessageRequestParams }
  | { method: 'roots/list'; params?: Record<string, unknown> };

/** The client's answers to input requests, by the keys the server gave them. */
export type InputResponses = Record<string, ElicitResult | CreateMessageResult | ListRootsResult>;
