/** Phone sign-in with a one-time code (sendOtp, verifyOtp, completeProfile for a new number). */
import { ApiError, gql } from './api';
import { h, render } from './dom';
import { saveSession } from './session';

type Session = {
  accessToken: string | null;
  userExists: boolean;
  phoneNumber: string;
  user: { firstName: string; lastName: string } | null;
  /** A new number: what completeProfile requires (single use), proving this browser verified it. */
  registrationToken?: string | null;
};

const SEND = `mutation($phone: String!) { sendOtp(input: { phoneNumber: $phone }) { message challenge { phoneNumber expiresIn } } }`;
const VERIFY = `mutation($phone: String!, $code: String!) {
  verifyOtp(input: { phoneNumber: $phone, verificationCode: $code }) { session { accessToken userExists phoneNumber registrationToken user { firstName lastName } } }
}`;
const REGISTER = `mutation($phone: String!, $first: String!, $last: String!, $registration: String) {
  completeProfile(input: { phoneNumber: $phone, firstName: $first, lastName: $last, registrationToken: $registration }) { session { accessToken userExists phoneNumber user { firstName lastName } } }
}`;

export function signInView(root: Element, signedIn: () => void): void {
  const error = h('p', { class: 'error', role: 'alert', hidden: true });
  const showError = (e: unknown) => {
    error.textContent = e instanceof ApiError ? e.describe() : String(e);
    error.hidden = false;
  };
  const busy = async (form: HTMLFormElement, work: () => Promise<void>) => {
    const button = form.querySelector('button');
    error.hidden = true;
    if (button) button.disabled = true;
    try {
      await work();
    } catch (e) {
      showError(e);
    } finally {
      if (button) button.disabled = false;
    }
  };
  const finish = (session: Session) => {
    if (!session.accessToken || !session.user) throw new ApiError('The service gave no token.');
    saveSession({ token: session.accessToken, phone: session.phoneNumber, name: `${session.user.firstName} ${session.user.lastName}` });
    signedIn();
  };

  const phoneInput = h('input', {
    id: 'phone',
    name: 'phone',
    type: 'tel',
    autocomplete: 'tel',
    required: true,
    placeholder: '+15550001001',
  });
  const phoneForm = h(
    'form',
    { class: 'card' },
    h('label', { for: 'phone' }, 'Phone number'),
    phoneInput,
    h('button', { type: 'submit' }, 'Send code'),
    h('p', { class: 'hint' }, 'In development, +15550001001 (store owner) and +15550000001 (customer) sign in with 123456.'),
  );
  phoneForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(phoneForm, async () => {
      const sent = await gql<{ sendOtp: { message: string; challenge: { phoneNumber: string } } }>(SEND, { phone: phoneInput.value });
      showCode(sent.sendOtp.challenge.phoneNumber, sent.sendOtp.message);
    });
  });

  const showCode = (phone: string, message: string) => {
    const codeInput = h('input', {
      id: 'code',
      name: 'code',
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
      required: true,
      pattern: '[0-9]{6}',
      maxlength: 6,
    });
    const codeForm = h(
      'form',
      { class: 'card' },
      h('p', {}, message, ' ', h('strong', {}, phone)),
      h('label', { for: 'code' }, 'Code'),
      codeInput,
      h('button', { type: 'submit' }, 'Sign in'),
    );
    codeForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void busy(codeForm, async () => {
        const { session } = (await gql<{ verifyOtp: { session: Session } }>(VERIFY, { phone, code: codeInput.value })).verifyOtp;
        if (session.userExists) finish(session);
        else showRegister(phone, session.registrationToken ?? null);
      });
    });
    render(root, h('h1', {}, 'Sign in'), codeForm, error);
    codeInput.focus();
  };

  const showRegister = (phone: string, registration: string | null) => {
    const first = h('input', { id: 'first-name', required: true, autocomplete: 'given-name' });
    const last = h('input', { id: 'last-name', required: true, autocomplete: 'family-name' });
    const form = h(
      'form',
      { class: 'card' },
      h('p', {}, 'A new number: tell us your name.'),
      h('label', { for: 'first-name' }, 'First name'),
      first,
      h('label', { for: 'last-name' }, 'Last name'),
      last,
      h('button', { type: 'submit' }, 'Create account'),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void busy(form, async () => {
        finish(
          (await gql<{ completeProfile: { session: Session } }>(REGISTER, { phone, first: first.value, last: last.value, registration }))
            .completeProfile.session,
        );
      });
    });
    render(root, h('h1', {}, 'Create your account'), form, error);
    first.focus();
  };

  render(root, h('h1', {}, 'Sign in'), phoneForm, error);
  phoneInput.focus();
}
