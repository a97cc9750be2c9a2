/**
 * The official SDK's request and notification schemas that a low-level server's handlers
 * are set with (`server.setRequestHandler(ListToolsRequestSchema, handler)`), and the result
 * schemas its `sendRequest(request, resultSchema)` takes. oxmcp reads only the method each
 * names: the core checks the messages themselves.
 */

import type { MethodSchema } from './lowlevel';

/** The schema of messages of `method`. */
function schemaOf<M extends string>(method: M): MethodSchema<M> {
  return Object.freeze({ shape: Object.freeze({ method: Object.freeze({ value: method }) }) });
}

/** Requests of `tools/list`. */
export const ListToolsRequestSchema = schemaOf('tools/list');
/** Requests of `tools/call`. */
export const CallToolRequestSchema = schemaOf('tools/call');
/** Requests of `prompts/list`. */
export const ListPromptsRequestSchema = schemaOf('prompts/list');
/** Requests of `prompts/get`. */
export const GetPromptRequestSchema = schemaOf('prompts/get');
/** Requests of `resources/list`. */
export const ListResourcesRequestSchema = schemaOf('resources/list');
/** Requests of `resources/templates/list`. */
export const ListResourceTemplatesRequestSchema = schemaOf('resources/templates/list');
/** Requests of `resources/read`. */
export const ReadResourceRequestSchema = schemaOf('resources/read');
/** Requests of `resources/subscribe`. */
export const SubscribeRequestSchema = schemaOf('resources/subscribe');
/** Requests of `resources/unsubscribe`. */
export const UnsubscribeRequestSchema = schemaOf('resources/unsubscribe');
/** Requests of `logging/setLevel`. */
export const SetLevelRequestSchema = schemaOf('logging/setLevel');
/** Requests of `completion/complete`. */
export const CompleteRequestSchema = schemaOf('completion/complete');
/** Requests of `tasks/get` (a server that keeps its own tasks answers them). */
export const GetTaskRequestSchema = schemaOf('tasks/get');
/** Requests of `tasks/result`. */
export const GetTaskPayloadRequestSchema = schemaOf('tasks/result');
/** Requests of `tasks/list`. */
export const ListTasksRequestSchema = schemaOf('tasks/list');
/** Requests of `tasks/cancel`. */
export const CancelTaskRequestSchema = schemaOf('tasks/cancel');
/** Notifications of `notifications/roots/list_changed`. */
export const RootsListChangedNotificationSchema = schemaOf('notifications/roots/list_changed');
/** Notifications of `notifications/initialized`. */
export const InitializedNotificationSchema = schemaOf('notifications/initialized');

/** Stands for the official schema of a result, where an API takes one (the core checks results). */
function resultSchema(result: string): { readonly result: string } {
  return Object.freeze({ result });
}

/** The result of `sampling/createMessage`. */
export const CreateMessageResultSchema = resultSchema('sampling/createMessage');
/** The result of `elicitation/create`. */
export const ElicitResultSchema = resultSchema('elicitation/create');
/** The result of `roots/list`. */
export const ListRootsResultSchema = resultSchema('roots/list');
