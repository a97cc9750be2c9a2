/**
 * The official TypeScript SDK's experimental tasks API over oxmcp's tasks:
 * `mcpServer.experimental.tasks.registerToolTask(name, config, { createTask, getTask,
 * getTaskResult })`, `server.experimental.tasks.elicitInputStream` and
 * `createMessageStream`, and the task store a server keeps (`InMemoryTaskStore`).
 *
 * oxmcp's core keeps the tasks of the tools registered as tasks (ids, status, results,
 * TTLs, `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`, in both eras) and runs a
 * task tool's handler as the task. So `createTask` runs as that handler, with
 * `extra.taskStore` standing for the task it runs as (under the core's id): its background
 * work ends the task with `storeTaskResult` (or fails it with `updateTaskStatus(id,
 * 'failed')`), there or on the `InMemoryTaskStore` the server was given, and the call's
 * result is what it stored. `getTask` and `getTaskResult` are not called: the core answers
 * those requests. A low-level server that answers the task requests itself keeps its tasks
 * in an `InMemoryTaskStore` as with the official SDK.
 */

import { randomBytes } from 'node:crypto';

import type { ElicitInput } from './context';
import { ErrorCode, McpError } from './errors';
import type { RequestHandlerExtra } from './lowlevel';
import type { RegisteredTool, ToolConfig } from './server';
import type { SchemaInput } from './schema';
import type { CallToolResult, CreateMessageRequestParams, CreateMessageResult, ElicitResult, Meta, TaskStatus } from './types';

/** The `_meta` key that ties a message to the task it is for. */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** Whether a task in `status` has ended. */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** A task as the official SDK's store describes it (the 2025-11-25 names). */
export interface StoredTask {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Milliseconds; null for no limit. */
  ttl: number | null;
  pollInterval?: number;
}

/** The answer to a call that asks to run as a task: the task made. */
export interface CreateTaskResult {
  task: StoredTask;
  _meta?: Meta;
}

/** What a task is made with: how long it is kept, and how often to poll it (ms). */
export interface TaskParams {
  ttl?: number | null;
  pollInterval?: number;
}

/** How a task the core runs ends: with the result stored, or failed. */
type Ending = (outcome: { result: CallToolResult } | { error: Error }) => void;

/** A task in the store, with its result once stored. */
interface Kept {
  task: StoredTask;
  result?: CallToolResult;
  sessionId?: string;
  /** For a task the core runs: tells it how the task ended. */
  ending?: Ending;
}

/**
 * Tasks kept in memory, as the official SDK's store keeps them: made with a random id,
 * dropped `ttl` ms after they are made (or after their result is stored), never moved on
 * from an ended status. Given to `McpServer`, it also holds the tasks the core runs its
 * task tools as, under the core's ids, while they run (and their `ttl` after, if they have
 * one: the core keeps them for `tasks/get` and `tasks/result`): storing one's result ends
 * that task.
 */
export class InMemoryTaskStore {
  readonly #tasks = new Map<string, Kept>();
  readonly #timers = new Map<string, NodeJS.Timeout>();

  /** A new task, `working`, of the session `sessionId` if given. */
  async createTask(params: TaskParams = {}, _requestId?: unknown, _request?: unknown, sessionId?: string): Promise<StoredTask> {
    return { ...this.#keep(randomBytes(16).toString('hex'), params, { sessionId }).task };
  }

  /** The task `taskId` (of the session `sessionId` if given), or null. */
  async getTask(taskId: string, sessionId?: string): Promise<StoredTask | null> {
    const kept = this.#lookup(taskId, sessionId);
    return kept === undefined ? null : { ...kept.task };
  }

  /** Ends task `taskId` with `result`, once. */
  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: CallToolResult, sessionId?: string): Promise<void> {
    const kept = this.#found(taskId, sessionId);
    this.#moveOn(kept, status);
    kept.result = result;
    kept.ending?.({ result: status === 'failed' ? { ...result, isError: true } : result });
  }

  /** The result stored for task `taskId`. */
  async getTaskResult(taskId: string, sessionId?: string): Promise<CallToolResult> {
    const kept = this.#found(taskId, sessionId);
    if (kept.result === undefined) {
      throw new Error(`Task ${taskId} has no result stored`);
    }
    return kept.result;
  }

  /** Moves task `taskId` on to `status`; an ended task stays as it ended. */
  async updateTaskStatus(taskId: string, status: TaskStatus, statusMessage?: string, sessionId?: string): Promise<void> {
    const kept = this.#found(taskId, sessionId);
    this.#moveOn(kept, status, statusMessage);
    if (status === 'failed' || status === 'cancelled') {
      kept.ending?.({ error: new Error(statusMessage ?? `the task was ${status}`) });
    }
  }

  /** A page of ten tasks (of the session `sessionId` if given), after the task `cursor` names. */
  async listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: StoredTask[]; nextCursor?: string }> {
    const ids = [...this.#tasks.keys()].filter((id) => this.#lookup(id, sessionId) !== undefined);
    const start = cursor === undefined ? 0 : ids.indexOf(cursor) + 1;
    if (start === 0 && cursor !== undefined) {
      throw new Error(`Invalid cursor: ${cursor}`);
    }
    const page = ids.slice(start, start + PAGE_SIZE);
    const more = start + PAGE_SIZE < ids.length;
    return { tasks: page.map((id) => ({ ...this.#tasks.get(id)!.task })), nextCursor: more ? page.at(-1) : undefined };
  }

  /** Every task kept. */
  getAllTasks(): StoredTask[] {
    return [...this.#tasks.values()].map(({ task }) => ({ ...task }));
  }

  /** Drops every task and its timer. */
  cleanup(): void {
    this.#timers.forEach(clearTimeout);
    this.#timers.clear();
    this.#tasks.clear();
  }

  /**
   * @internal Keeps the task the core runs a call as, under its id, made with `params`
   * (again, when its `createTask` names them): `ending` hears how it ends.
   */
  keepRunning(taskId: string, ending: Ending, params: TaskParams = {}): StoredTask {
    return this.#keep(taskId, params, { ending }).task;
  }

  #keep(taskId: string, { ttl = null, pollInterval = 1000 }: TaskParams, kept: Omit<Kept, 'task'>): Kept {
    const now = new Date().toISOString();
    const entry = { ...kept, task: { taskId, status: 'working' as const, ttl, createdAt: now, lastUpdatedAt: now, pollInterval } };
    this.#tasks.set(taskId, entry);
    this.#expire(entry.task);
    return entry;
  }

  #lookup(taskId: string, sessionId: string | undefined): Kept | undefined {
    const kept = this.#tasks.get(taskId);
    const elsewhere = sessionId !== undefined && kept?.sessionId !== undefined && kept.sessionId !== sessionId;
    return elsewhere ? undefined : kept;
  }

  #found(taskId: string, sessionId: string | undefined): Kept {
    const kept = this.#lookup(taskId, sessionId);
    if (kept === undefined) {
      throw new Error(`Task with ID ${taskId} not found`);
    }
    return kept;
  }

  #moveOn({ task, ending }: Kept, status: TaskStatus, statusMessage?: string): void {
    if (isTerminal(task.status)) {
      throw new Error(`Task ${task.taskId} has ended (${task.status}): it cannot become ${status}`);
    }
    Object.assign(task, { status, lastUpdatedAt: new Date().toISOString() }, statusMessage ? { statusMessage } : {});
    if (isTerminal(status) && ending !== undefined && !task.ttl) {
      // A task the core ran, kept for no time of its own: the core answers for it now.
      this.#tasks.delete(task.taskId);
    } else if (isTerminal(status)) {
      this.#expire(task);
    }
  }

  /** Drops `task` once its time to live has passed from now, if it has one. */
  #expire({ taskId, ttl }: StoredTask): void {
    clearTimeout(this.#timers.get(taskId));
    if (ttl) {
      const timer = setTimeout(() => {
        this.#tasks.delete(taskId);
        this.#timers.delete(taskId);
      }, ttl);
      // A task kept for later must not keep the process alive.
      this.#timers.set(taskId, timer.unref());
    }
  }
}

const PAGE_SIZE = 10;

/** Where the official SDK queues a task's messages to the client; oxmcp's core sends them. */
export class InMemoryTaskMessageQueue {}

/** The task a `createTask` handler runs as, as the official `extra.taskStore` offers it. */
export interface RequestTaskStore {
  createTask(params?: TaskParams): Promise<StoredTask>;
  getTask(taskId: string): Promise<StoredTask | null>;
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: CallToolResult): Promise<void>;
  getTaskResult(taskId: string): Promise<CallToolResult>;
  updateTaskStatus(taskId: string, status: TaskStatus, statusMessage?: string): Promise<void>;
  listTasks(cursor?: string): Promise<{ tasks: StoredTask[]; nextCursor?: string }>;
}

/** The official `extra` of a task handler. */
export interface TaskHandlerExtra extends RequestHandlerExtra {
  taskStore: RequestTaskStore;
  taskId?: string;
  taskRequestedTtl?: number | null;
}

/** The official task tool handler; `getTask` and `getTaskResult` are the core's to answer. */
export interface ToolTaskHandler {
  createTask(...args: never[]): unknown;
  getTask?: (...args: never[]) => unknown;
  getTaskResult?: (...args: never[]) => unknown;
}

/** The official task tool's config: a tool's, with `execution.taskSupport`. */
export type TaskToolConfig<I extends SchemaInput | undefined> = ToolConfig<I, undefined> & {
  execution?: { taskSupport?: 'optional' | 'required' };
};

/** How `registerToolTask` registers the tool it makes. */
type Register = (
  name: string,
  config: ToolConfig<SchemaInput | undefined, undefined>,
  cb: (...args: unknown[]) => unknown,
) => RegisteredTool;

/** `mcpServer.experimental.tasks`. */
export class ExperimentalTasks {
  /** `store` is the server's `taskStore` option, which then holds its running tasks too. */
  constructor(
    private readonly register: Register,
    private readonly store: InMemoryTaskStore | undefined,
  ) {}

  /** A tool that runs as a task (`execution.taskSupport`, `required` unless it says `optional`). */
  registerToolTask<I extends SchemaInput | undefined = undefined>(
    name: string,
    config: TaskToolConfig<I>,
    handler: ToolTaskHandler,
  ): RegisteredTool {
    const { execution, ...tool } = config;
    const task = execution?.taskSupport ?? 'required';
    return this.register(name, { ...(tool as ToolConfig<SchemaInput | undefined, undefined>), task }, (...args) => {
      const extra = args.pop() as RequestHandlerExtra;
      const createTask = (taskExtra: TaskHandlerExtra): unknown => handler.createTask(...([...args, taskExtra] as never[]));
      return runAsTask(createTask, extra, this.store ?? new InMemoryTaskStore());
    });
  }
}

/**
 * Runs `createTask` as the task the call runs as, kept in `store` under the core's id;
 * resolves with the result stored for it.
 */
async function runAsTask(
  createTask: (extra: TaskHandlerExtra) => unknown,
  extra: RequestHandlerExtra,
  store: InMemoryTaskStore,
): Promise<CallToolResult> {
  const { ctx } = extra;
  const result = new Promise<CallToolResult>((resolve, reject) => {
    const taskId = ctx.taskId ?? randomBytes(16).toString('hex');
    const ending: Ending = (outcome) => ('result' in outcome ? resolve(outcome.result) : reject(outcome.error));
    store.keepRunning(taskId, ending);
    // A task cancelled (or whose session ended) ends in the store too.
    extra.signal.addEventListener('abort', () => store.updateTaskStatus(taskId, 'cancelled').catch(() => {}), { once: true });
    const taskStore: RequestTaskStore = {
      async createTask(params = {}) {
        return { ...store.keepRunning(taskId, ending, params) };
      },
      getTask: (id) => store.getTask(id),
      storeTaskResult: (id, status, stored) => store.storeTaskResult(id, status, stored),
      getTaskResult: (id) => store.getTaskResult(id),
      async updateTaskStatus(id, status, statusMessage) {
        await store.updateTaskStatus(id, status, statusMessage);
        if (statusMessage !== undefined && ctx.isTask && !isTerminal(status)) {
          await ctx.taskStatus(statusMessage);
        }
      },
      listTasks: (cursor) => store.listTasks(cursor),
    };
    Promise.resolve(createTask({ ...extra, taskStore, taskId, taskRequestedTtl: null })).catch(reject);
  });
  return result;
}

/** What a stream of one request to the client yields: its result, or its error. */
export type ResponseMessage<R> = { type: 'result'; result: R } | { type: 'error'; error: McpError };

/** What asks the client of the request in progress (the low-level server). */
interface Asker {
  elicitInput(params: ElicitInput): Promise<ElicitResult>;
  createMessage(params: CreateMessageRequestParams): Promise<CreateMessageResult>;
}

/** `server.experimental.tasks`: the requests to the client as streams of what they yield. */
export class ExperimentalServerTasks {
  constructor(private readonly server: Asker) {}

  /** `elicitation/create`, yielding its result or its error. */
  elicitInputStream(params: ElicitInput): AsyncGenerator<ResponseMessage<ElicitResult>> {
    return answered(() => this.server.elicitInput(params));
  }

  /** `sampling/createMessage`, yielding its result or its error. */
  createMessageStream(params: CreateMessageRequestParams): AsyncGenerator<ResponseMessage<CreateMessageResult>> {
    return answered(() => this.server.createMessage(params));
  }
}

async function* answered<R>(ask: () => Promise<R>): AsyncGenerator<ResponseMessage<R>> {
  try {
    yield { type: 'result', result: await ask() };
  } catch (error) {
    yield { type: 'error', error: error instanceof McpError ? error : new McpError(ErrorCode.InternalError, String(error)) };
  }
}
