/**
 * The official TypeScript SDK's experimental tasks API over oxmcp's tasks:
 * `mcpServer.experimental.tasks.registerToolTask(name, config, { createTask, getTask,
 * getTaskResult })` and the stores a server hands `McpServer` (`InMemoryTaskStore`,
 * `InMemoryTaskMessageQueue`).
 *
 * oxmcp's core keeps the tasks (ids, status, results, TTLs, `tasks/get`, `tasks/result`,
 * `tasks/list`, `tasks/cancel`, in both eras) and runs a task tool's handler as the task.
 * So `createTask` runs as that handler, with `extra.taskStore` standing for the task it
 * runs as: its background work ends the task with `storeTaskResult` (or fails it with
 * `updateTaskStatus(id, 'failed')`), and the call's result is what it stored. `getTask`
 * and `getTaskResult` are not called: the core answers those requests.
 */

import { randomUUID } from 'node:crypto';

import type { RequestHandlerExtra } from './lowlevel';
import type { RegisteredTool, ToolConfig } from './server';
import type { SchemaInput } from './schema';
import type { CallToolResult, TaskStatus } from './types';

/** Where the official SDK keeps its tasks; oxmcp's core keeps them itself, so it holds nothing. */
export class InMemoryTaskStore {
  /** Stops nothing: there is nothing kept here. */
  cleanup(): void {}
}

/** Where the official SDK queues a task's messages to the client; oxmcp's core sends them. */
export class InMemoryTaskMessageQueue {}

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

/** The task a `createTask` handler runs as, as the official `extra.taskStore` offers it. */
export interface RequestTaskStore {
  createTask(params?: { ttl?: number | null; pollInterval?: number }): Promise<StoredTask>;
  getTask(taskId: string): Promise<StoredTask>;
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: CallToolResult): Promise<void>;
  getTaskResult(taskId: string): Promise<CallToolResult>;
  updateTaskStatus(taskId: string, status: TaskStatus, statusMessage?: string): Promise<void>;
  listTasks(cursor?: string): Promise<{ tasks: StoredTask[] }>;
}

/** The official `extra` of a task handler. */
export interface TaskHandlerExtra extends RequestHandlerExtra {
  taskStore: RequestTaskStore;
  taskId?: string;
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
  constructor(private readonly register: Register) {}

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
      return runAsTask((taskExtra) => handler.createTask(...([...args, taskExtra] as never[])), extra);
    });
  }
}

/** Runs `createTask` as the task the call runs as; resolves with the result it stores. */
async function runAsTask(createTask: (extra: TaskHandlerExtra) => unknown, extra: RequestHandlerExtra): Promise<CallToolResult> {
  let ended!: { resolve: (result: CallToolResult) => void; reject: (error: Error) => void };
  const result = new Promise<CallToolResult>((resolve, reject) => (ended = { resolve, reject }));
  const now = new Date().toISOString();
  const task: StoredTask = { taskId: randomUUID(), status: 'working', createdAt: now, lastUpdatedAt: now, ttl: null };
  const taskStore: RequestTaskStore = {
    async createTask(params = {}) {
      Object.assign(task, { ttl: params.ttl ?? null, pollInterval: params.pollInterval });
      return task;
    },
    async getTask() {
      return task;
    },
    async storeTaskResult(_taskId, status, stored) {
      task.status = status;
      ended.resolve(status === 'failed' ? { ...stored, isError: true } : stored);
    },
    getTaskResult() {
      return result;
    },
    async updateTaskStatus(_taskId, status, statusMessage) {
      task.status = status;
      if (status === 'failed' || status === 'cancelled') {
        ended.reject(new Error(statusMessage ?? `the task was ${status}`));
      } else if (statusMessage !== undefined && extra.ctx.isTask) {
        await extra.ctx.taskStatus(statusMessage);
      }
    },
    async listTasks() {
      return { tasks: [task] };
    },
  };
  await createTask({ ...extra, taskStore, taskId: task.taskId });
  return result;
}
