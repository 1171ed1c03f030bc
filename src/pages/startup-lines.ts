/** What `npm start` prints last: where the pages are and how to sign in on them. */
import { Config } from '../config';
import { DEMO_ACCOUNTS } from '../db/seed/demo-accounts';

export function startupLines(config: Config, port: number): string[] {
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  const base = `http://${host}:${port}`;
  const lines = [
    `REST reference:    ${base}/docs`,
    config.graphiql ? `GraphQL explorer:  ${base}/graphql` : `GraphQL explorer:  off (GRAPHIQL_ENABLED=true turns it on)`,
    `Dashboard:         ${base}/dashboard`,
  ];
  if (config.env === 'development') {
    // Only the demo accounts this configuration actually gives a fixed code.
    const usable = DEMO_ACCOUNTS.filter((a) => config.otp.testNumbers.get(a.phone) === a.code);
    const demo = (['store owner', 'customer'] as const).flatMap((role) => usable.find((a) => a.role === role) ?? []);
    const others = [...config.otp.testNumbers].filter(([phone]) => !DEMO_ACCOUNTS.some((a) => a.phone === phone));
    const accounts = demo.length > 0 ? demo.map((a) => `${a.phone} (${a.role})`) : others.slice(0, 1).map(([phone]) => phone);
    const code = demo[0]?.code ?? others[0]?.[1];
    if (accounts.length > 0) lines.push(`Demo sign-in:      ${accounts.join(' or ')}, code ${code}`);
  }
  return lines;
}
