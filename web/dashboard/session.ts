/** The signed-in user's token, kept in this browser (localStorage) until sign-out. */
const KEY = 'delivery-dashboard.session';

export interface Session {
  token: string;
  name: string;
  phone: string;
}

export function currentSession(): Session | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Session | null;
    return value && typeof value.token === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session): void {
  localStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  localStorage.removeItem(KEY);
}
