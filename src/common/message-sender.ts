/** Delivers a one-time code to a phone. Implementations throw when delivery failed. */
export interface MessageSender {
  sendCode(phoneNumber: string, code: string): Promise<void>;
}
