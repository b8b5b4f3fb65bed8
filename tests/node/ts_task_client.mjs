// The official TypeScript SDK's client as a task requestor against a server given on the
// command line (`node ts_task_client.mjs PYTHON SCRIPT`): the peer of
// tests/interop/test_tasks_ts_client.py. Prints one JSON object of what it saw.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, script] = process.argv.slice(2);
const client = new Client({ name: 'ts-task-client', version: '1.0.0' });
await client.connect(new StdioClientTransport({ command, args: [script], stderr: 'inherit' }));
const out = { capabilities: client.getServerCapabilities() };

const stream = [];
const params = { name: 'delay', arguments: { ms: 100 } };
for await (const m of client.experimental.tasks.callToolStream(params, undefined, { task: { ttl: 60000 } })) {
  if (m.type === 'result') stream.push({ type: 'result', result: m.result });
  else if (m.type === 'error') stream.push({ type: 'error', error: String(m.error) });
  else stream.push({ type: m.type, status: m.task.status });
}
out.stream = stream;

const created = await client.request(
  { method: 'tools/call', params: { name: 'delay', arguments: { ms: 5000 }, task: { ttl: 60000 } } },
  CreateTaskResultSchema,
);
out.created = created.task.status;
out.get = (await client.experimental.tasks.getTask(created.task.taskId)).status;
out.listed = (await client.experimental.tasks.listTasks()).tasks.map((x) => x.status);
out.cancel = (await client.experimental.tasks.cancelTask(created.task.taskId)).status;
try {
  await client.experimental.tasks.cancelTask(created.task.taskId);
} catch (e) {
  out.cancelAgain = e.code;
}
try {
  await client.experimental.tasks.getTask('no-such-task');
} catch (e) {
  out.missing = e.code;
}
console.log(JSON.stringify(out));
await client.close();
