// A stdio MCP server on the official TypeScript SDK with its experimental tasks: the peer of
// tests/interop/test_tasks_ts_server.py. Tool "delay" runs as a task (taskSupport optional)
// and completes after `ms` milliseconds with the text "slept <ms>".
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks';

const server = new McpServer(
  { name: 'ts-task-server', version: '1.0.0' },
  {
    capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore: new InMemoryTaskStore(),
    taskMessageQueue: new InMemoryTaskMessageQueue(),
  },
);

server.experimental.tasks.registerToolTask(
  'delay',
  { description: 'Sleep, as a task', inputSchema: { ms: z.number() }, execution: { taskSupport: 'optional' } },
  {
    async createTask({ ms }, { taskStore, taskRequestedTtl }) {
      const task = await taskStore.createTask({ ttl: taskRequestedTtl });
      setTimeout(() => {
        taskStore
          .storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `slept ${ms}` }] })
          .catch(() => {});
      }, ms);
      return { task };
    },
    async getTask(_args, { taskId, taskStore }) {
      return await taskStore.getTask(taskId);
    },
    async getTaskResult(_args, { taskId, taskStore }) {
      return await taskStore.getTaskResult(taskId);
    },
  },
);

await server.connect(new StdioServerTransport());
