/**
 * The dashboard speaks only the public API: GraphQL over POST /graphql and subscriptions
 * over graphql-ws on the same path, signed in with the bearer token.
 */
import { createClient, type Client } from 'graphql-ws';
import { clearSession, currentSession } from './session';

/** An error the API answered, with its code (UNAUTHENTICATED, VALIDATION, ...). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly fields?: Record<string, string[]>,
  ) {
    super(message);
  }

  /** The message with its field errors, as a person should read it. */
  describe(): string {
    const details = Object.values(this.fields ?? {}).flat();
    return details.length > 0 ? `${this.message} ${details.join(' ')}` : this.message;
  }
}

type GraphQLErrorShape = { message: string; extensions?: { code?: string; fields?: Record<string, string[]> } };

/** Called when the API no longer accepts the token: the app goes back to sign-in. */
let onSignedOut: () => void = () => undefined;
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

export async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const session = currentSession();
  let response: Response;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(session && { authorization: `Bearer ${session.token}` }),
      },
      body: JSON.stringify({ query, variables }),
    });
  } catch {
    throw new ApiError('The service cannot be reached. Check the connection and try again.', 'NETWORK');
  }
  let body: { data?: T | null; errors?: GraphQLErrorShape[] };
  try {
    body = (await response.json()) as typeof body;
  } catch {
    throw new ApiError(`The service answered ${response.status} without a GraphQL result.`, 'BAD_RESPONSE');
  }
  const error = body.errors?.[0];
  if (error) {
    const code = error.extensions?.code;
    if (code === 'UNAUTHENTICATED' && session) {
      clearSession();
      onSignedOut();
    }
    throw new ApiError(error.message, code, error.extensions?.fields);
  }
  return body.data as T;
}

/** A websocket signed in with the current token; each live view owns its own (live.ts). */
export function createLiveClient(): Client {
  const session = currentSession();
  if (!session) throw new ApiError('Sign in first.', 'UNAUTHENTICATED');
  return createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: { authorization: `Bearer ${session.token}` },
    // Reconnection is live.ts's: each retry resumes with fresh variables (afterSeq).
    retryAttempts: 0,
  });
}
