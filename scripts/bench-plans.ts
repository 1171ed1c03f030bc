/**
 * The plans behind each benchmarked path, taken from the SQL the service really sends (issue 9:
 * "each query's plan printed"; copies of the SQL by hand would rot). A service started with
 * BENCH_RECORD_SQL=1 (scripts/bench-servers.ts) records every statement its pg clients send;
 * after one request of a path the bench takes them over IPC and runs each again under
 * `EXPLAIN (ANALYZE, BUFFERS)`, with the same parameters, in a transaction it rolls back.
 * The request is then repeated: how many statements the second one sends shows caching.
 */
import { ChildProcess } from 'node:child_process';
import { Client } from 'pg';
import type { RecordedStatement } from './bench-servers';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  'Temp Read Blocks': number;
  'Temp Written Blocks': number;
  'Heap Fetches'?: number;
  'Sort Method'?: string;
  'Sort Space Type'?: string;
  Plans?: PlanNode[];
}

export interface ExplainedStatement {
  sql: string;
  values: (string | null)[];
  executionMs: number;
  planningMs: number;
  /** Shared buffers the statement touched (hit + read), of which read from outside PostgreSQL's cache. */
  buffers: number;
  read: number;
  /** Temporary-file blocks read and written (sorts or hashes spilling to disk). */
  temp: number;
  /** Rows the statement returned. */
  rows: number;
  /** Each table or index scan and sort, with the rows it produced (summed over loops). */
  nodes: string[];
  /** `EXPLAIN (ANALYZE, BUFFERS)` as PostgreSQL prints it (only when asked for full plans). */
  text?: string;
  error?: string;
}

export interface PathPlan {
  name: string;
  path: string;
  statements: ExplainedStatement[];
  /** Statements the same request sent a second time (fewer when the service caches). */
  again: number;
  error?: string;
}

/** Statements that are not queries: the transaction and session around them. */
const NOT_A_QUERY = /^\s*(begin|start\s+transaction|commit|rollback|savepoint|release|set|reset|show|discard)\b/i;

/** Statements the service's pg clients sent since the last call. */
export function takeStatements(service: ChildProcess): Promise<RecordedStatement[]> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      service.off('message', onMessage);
      resolve(message as RecordedStatement[]);
    };
    service.on('message', onMessage);
    service.send('take-sql', (error) => {
      if (error) {
        service.off('message', onMessage);
        reject(error);
      }
    });
  });
}

/** Scans and sorts of a plan, with the rows each produced, in plan order. */
export function planNodes(root: PlanNode): string[] {
  const found = new Map<string, { rows: number; heapFetches?: number }>();
  const visit = (node: PlanNode) => {
    const type = node['Node Type'];
    const target = node['Index Name'] ?? node['Relation Name'];
    let label: string | undefined;
    if (type.endsWith('Scan') && target) label = `${type} ${target}`;
    else if (type === 'Sort') label = `Sort (${node['Sort Method'] ?? '?'}${node['Sort Space Type'] === 'Disk' ? ', on disk' : ''})`;
    if (label) {
      const entry = found.get(label) ?? { rows: 0 };
      entry.rows += node['Actual Rows'] * node['Actual Loops'];
      if (node['Heap Fetches'] !== undefined) entry.heapFetches = (entry.heapFetches ?? 0) + node['Heap Fetches'];
      found.set(label, entry);
    }
    node.Plans?.forEach(visit);
  };
  visit(root);
  return [...found].map(
    ([label, { rows, heapFetches }]) =>
      `${label}: ${groupDigits(rows)} rows${heapFetches === undefined ? '' : `, ${groupDigits(heapFetches)} heap fetches`}`,
  );
}

/** Each statement under EXPLAIN (ANALYZE, BUFFERS), inside a transaction that is rolled back. */
export async function explainStatements(
  databaseUrl: string,
  statements: RecordedStatement[],
  full: boolean,
): Promise<ExplainedStatement[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const explained: ExplainedStatement[] = [];
    for (const { text, values } of statements) {
      if (NOT_A_QUERY.test(text)) continue;
      const params = values.length > 0 ? values : undefined;
      const entry: ExplainedStatement = {
        sql: text,
        values,
        executionMs: 0,
        planningMs: 0,
        buffers: 0,
        read: 0,
        temp: 0,
        rows: 0,
        nodes: [],
      };
      await client.query('begin');
      try {
        await client.query(`set local statement_timeout = '120s'`);
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Planning Time': number; 'Execution Time': number }] }>(
          `explain (analyze, buffers, format json) ${text}`,
          params,
        );
        const [{ Plan: plan, 'Planning Time': planningMs, 'Execution Time': executionMs }] = rows[0]['QUERY PLAN'];
        entry.executionMs = executionMs;
        entry.planningMs = planningMs;
        entry.read = plan['Shared Read Blocks'];
        entry.buffers = plan['Shared Hit Blocks'] + entry.read;
        entry.temp = plan['Temp Read Blocks'] + plan['Temp Written Blocks'];
        entry.rows = plan['Actual Rows'];
        entry.nodes = planNodes(plan);
        if (full) {
          const printed = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${text}`, params);
          entry.text = printed.rows.map((r) => r['QUERY PLAN']).join('\n');
        }
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error);
      } finally {
        await client.query('rollback');
      }
      explained.push(entry);
    }
    return explained;
  } finally {
    await client.end();
  }
}

/** One request of each path against a recording service, and the plans of what it sent. */
export async function capturePlans(
  service: { url: string; process: ChildProcess },
  databaseUrl: string,
  requests: { name: string; path: string }[],
  full: boolean,
): Promise<PathPlan[]> {
  const plans: PathPlan[] = [];
  for (const { name, path } of requests) {
    await takeStatements(service.process); // whatever ran before (start-up, the previous path)
    const first = await fetch(`${service.url}${path}`);
    await first.arrayBuffer();
    const sent = await takeStatements(service.process);
    const again = await fetch(`${service.url}${path}`);
    await again.arrayBuffer();
    const sentAgain = await takeStatements(service.process);
    const plan: PathPlan = {
      name,
      path,
      statements: await explainStatements(databaseUrl, sent, full),
      again: sentAgain.filter((s) => !NOT_A_QUERY.test(s.text)).length,
    };
    if (!first.ok || !again.ok) plan.error = `answered ${first.status}, then ${again.status}`;
    const failed = plan.statements.find((s) => s.error);
    if (failed) plan.error = `${plan.error ? `${plan.error}; ` : ''}EXPLAIN failed: ${failed.error}`;
    plans.push(plan);
  }
  return plans;
}

/** The plans as one markdown table (and, when captured, each full plan after it). */
export function formatPlans(plans: PathPlan[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const lines = ['| path | # | ms | buffers | rows | scans and sorts (rows) | statement |', '|---|---|---|---|---|---|---|'];
  for (const plan of plans) {
    const total = plan.statements.reduce(
      (sum, s) => ({ ms: sum.ms + s.executionMs + s.planningMs, buffers: sum.buffers + s.buffers, temp: sum.temp + s.temp }),
      {
        ms: 0,
        buffers: 0,
        temp: 0,
      },
    );
    const summary =
      `${plan.statements.length} statement${plan.statements.length === 1 ? '' : 's'}, ${total.ms.toFixed(2)} ms, ` +
      `${buffersText(total.buffers, 0, total.temp)} buffers; the same request again: ${plan.again}` +
      (plan.error ? `; **${plan.error}**` : '');
    lines.push(`| ${cell(plan.name)} \`${cell(plan.path)}\` | | | | | ${cell(summary)} | |`);
    plan.statements.forEach((s, i) => {
      const ms = `${(s.executionMs + s.planningMs).toFixed(2)}`;
      const nodes = s.error ? `EXPLAIN failed: ${s.error}` : s.nodes.join('; ') || '(no table read)';
      lines.push(
        `| | ${i + 1} | ${ms} | ${buffersText(s.buffers, s.read, s.temp)} | ${groupDigits(s.rows)} | ${cell(nodes)} | \`${cell(preview(s.sql))}\` |`,
      );
    });
  }
  const full = plans.flatMap((plan) =>
    plan.statements
      .filter((s) => s.text)
      .map(
        (s, i) =>
          `#### ${plan.name}, statement ${i + 1}\n\n\`\`\`sql\n${s.sql.trim()}\n-- parameters: ${JSON.stringify(s.values)}\n\n${s.text}\n\`\`\``,
      ),
  );
  return [lines.join('\n'), ...full].join('\n\n');
}

function buffersText(buffers: number, read: number, temp: number): string {
  return `${groupDigits(buffers)}${read ? ` (${groupDigits(read)} read)` : ''}${temp ? ` + ${groupDigits(temp)} temp` : ''}`;
}

/** The statement on one line, a long plain column list (the ORM's, the row views') elided, expressions kept, cut to a readable length. */
export function preview(sql: string): string {
  const line = sql
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^select ([^()]{60,}?) from /i, 'select … from ');
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}

/** 50565 -> "50 565", as the README writes figures. */
export function groupDigits(value: number): string {
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}
