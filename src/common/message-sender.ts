/**
 * Delivers a one-time code to a phone. Implementations throw when delivery failed, and when the
 * provider has not fully answered within their deadline (WhatsApp: WHATSAPP_TIMEOUT_MS, after
 * which the connection is dropped: "no answer within N ms", or "no full answer" for an answer
 * that never ends). send-otp then withdraws the code and answers 500 (spec §4.1).
 */
export interface MessageSender {
  sendCode(phoneNumber: string, code: string): Promise<void>;
}
